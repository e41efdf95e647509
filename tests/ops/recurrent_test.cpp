// RNN, GRU and LSTM with layout = 1 (batch first), which ONNX Runtime does not run: each must equal
// the same op at layout 0 on the transposed inputs, with its outputs transposed back. The
// differential test checks layout 0 against ONNX Runtime.
#include <gtest/gtest.h>

#include <cstring>

#include "engine/ops/strided_copy.h"
#include "tests/ops/op_harness.h"

namespace q8 {
namespace {

// x with axes a and b swapped.
Tensor swapped(const Tensor& x, size_t a, size_t b) {
  Dims dims = x.dims();
  std::swap(dims[a], dims[b]);
  std::vector<int64_t> strides = dense_strides(x.dims());
  std::swap(strides[a], strides[b]);
  Tensor out(x.dtype(), dims);
  gather_strided(x, 0, strides, out);
  return out;
}

Node recurrent(const std::string& op, int64_t hidden, const std::string& direction, int64_t layout, size_t outputs) {
  Node n;
  n.op_type = op, n.name = op;
  n.inputs = {"x", "w", "r", "b", "lens", "h0"};
  if (op == "LSTM") n.inputs.insert(n.inputs.end(), {"c0", "p"});
  for (size_t i = 0; i < outputs; ++i) n.outputs.push_back("y" + std::to_string(i));
  n.attributes["hidden_size"] = Attribute::of_int(hidden);
  n.attributes["direction"] = Attribute::of_string(direction);
  n.attributes["layout"] = Attribute::of_int(layout);
  return n;
}

void expect_same(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.dims(), b.dims());
  EXPECT_EQ(std::memcmp(a.raw(), b.raw(), a.nbytes()), 0);
}

class Recurrent : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(Recurrent, BatchFirstLayoutEqualsTheTransposedSequenceFirstOne) {
  const auto& [op, direction] = GetParam();
  const int64_t seq = 5, batch = 3, input = 4, hidden = 6, dirs = direction == "bidirectional" ? 2 : 1;
  const int64_t gates = op == "LSTM" ? 4 : op == "GRU" ? 3 : 1;
  const size_t outputs = op == "LSTM" ? 3 : 2;
  const Tensor x = random_tensor({seq, batch, input}, 1), w = random_tensor({dirs, gates * hidden, input}, 2),
               r = random_tensor({dirs, gates * hidden, hidden}, 3), b = random_tensor({dirs, 2 * gates * hidden}, 4),
               h0 = random_tensor({dirs, batch, hidden}, 5), c0 = random_tensor({dirs, batch, hidden}, 6),
               p = random_tensor({dirs, 3 * hidden}, 7);
  const Tensor lens = Tensor::from_vector<int32_t>({batch}, {5, 2, 0});
  Inputs first = {&x, &w, &r, &b, &lens, &h0};
  const Tensor xt = swapped(x, 0, 1), h0t = swapped(h0, 0, 1), c0t = swapped(c0, 0, 1);
  Inputs batch_first = {&xt, &w, &r, &b, &lens, &h0t};
  if (op == "LSTM") first.insert(first.end(), {&c0, &p}), batch_first.insert(batch_first.end(), {&c0t, &p});
  const std::vector<Tensor> want = run_op(recurrent(op, hidden, direction, 0, outputs), first, 14);
  const std::vector<Tensor> got = run_op(recurrent(op, hidden, direction, 1, outputs), batch_first, 14);
  ASSERT_EQ(got.size(), outputs);
  // Y: [seq, dirs, batch, H] against [batch, seq, dirs, H]; the states: [dirs, batch, H] against [batch, dirs, H].
  expect_same(swapped(swapped(got[0], 0, 1), 1, 2), want[0]);
  for (size_t k = 1; k < outputs; ++k) expect_same(swapped(got[k], 0, 1), want[k]);
}

INSTANTIATE_TEST_SUITE_P(Ops, Recurrent,
                         ::testing::Combine(::testing::Values("RNN", "GRU", "LSTM"), ::testing::Values("forward", "reverse", "bidirectional")),
                         [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

}  // namespace
}  // namespace q8
