// Concat against the definition written here: along axis a, output index i_a reads input k at
// i_a − (the sizes of inputs 0..k−1 along a). Outputs large enough that the copy splits between
// threads mid-row, on every axis, with an empty input among them, on 1- and 4-byte values.
#include <gtest/gtest.h>

#include <random>

#include "tests/ops/op_harness.h"

namespace q8 {
namespace {

template <typename T>
void check_concat(const std::vector<Dims>& shapes, int64_t axis, DType dtype) {
  std::mt19937_64 rng(23);
  std::vector<Tensor> inputs;
  Inputs args;
  for (const Dims& d : shapes) {
    Tensor t(dtype, d);
    T* p = reinterpret_cast<T*>(t.raw());
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = T(rng());
    inputs.push_back(std::move(t));
  }
  for (const Tensor& t : inputs) args.push_back(&t);
  Node node;
  node.op_type = "Concat";
  node.name = "concat";
  for (size_t k = 0; k < inputs.size(); ++k) node.inputs.push_back("x" + std::to_string(k));
  node.outputs = {"y"};
  node.attributes["axis"] = Attribute::of_int(axis);
  const Tensor y = run_op(node, args, 13)[0];
  const size_t rank = shapes[0].size(), a = size_t(axis);
  Dims out = shapes[0];
  out[a] = 0;
  for (const Dims& d : shapes) out[a] += d[a];
  ASSERT_EQ(y.dims(), out);
  const T* py = reinterpret_cast<const T*>(y.raw());
  std::vector<int64_t> idx(rank, 0);
  for (int64_t o = 0; o < y.numel(); ++o) {
    size_t k = 0;
    int64_t along = idx[a];
    while (along >= shapes[k][a]) along -= shapes[k++][a];
    int64_t flat = 0;
    for (size_t d = 0; d < rank; ++d) flat = flat * shapes[k][d] + (d == a ? along : idx[d]);
    ASSERT_EQ(py[o], reinterpret_cast<const T*>(inputs[k].raw())[flat]) << "axis " << axis << ", flat output " << o;
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < out[d]) break;
      idx[d] = 0;
    }
  }
}

TEST(ConcatOp, EveryAxisPutsEachValueWhereTheDefinitionSays) {
  for (int64_t axis = 0; axis < 4; ++axis) {
    std::vector<Dims> shapes = {{2, 3, 40, 70}, {2, 3, 40, 70}, {2, 3, 40, 70}};
    shapes[1][size_t(axis)] = 5;
    shapes[2][size_t(axis)] = 0;  // an empty input
    check_concat<uint8_t>(shapes, axis, DType::Uint8);
    check_concat<uint32_t>(shapes, axis, DType::Float32);
  }
}

}  // namespace
}  // namespace q8
