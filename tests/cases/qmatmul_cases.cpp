// QMatMul (docs/quantization.md, "Batched MatMul of two activations"): batch axes equal,
// broadcast either way and absent, sizes around and past the 16-wide tiles, K = 0, extreme
// operands (every product 128²), ties, a folded Relu, float and int8 out. Expected outputs by
// direct index arithmetic from the formula.
#include <cmath>

#include "tests/cases/op_case.h"

namespace q8 {

namespace {

struct MatMulCase {
  Dims a, b;
  bool int8_out = true, extreme = false, ties = false, relu = false;
};

// The batch index of operand dims (rank >= 2) for output batch index `o` of batch dims `out`.
int64_t operand_batch(const Dims& dims, const Dims& out, int64_t o) {
  const size_t rank = dims.size() - 2;
  int64_t index = 0, stride = 1;
  for (size_t d = out.size(); d-- > 0;) {
    const int64_t at = o % out[d];
    o /= out[d];
    if (d + rank < out.size()) continue;
    const int64_t extent = dims[d + rank - out.size()];
    index += (extent == 1 ? 0 : at) * stride;
    stride *= extent;
  }
  return index;
}

OpCase matmul_case(const MatMulCase& k, uint32_t seed) {
  std::mt19937 rng(seed);
  const Tensor a = k.extreme ? random_int8(k.a, rng, -128, -128) : random_int8(k.a, rng);
  const Tensor b = k.extreme ? random_int8(k.b, rng, -128, -128) : random_int8(k.b, rng);
  const int64_t m = k.a[k.a.size() - 2], kk = k.a.back(), n = k.b.back();
  Dims batch(std::max(k.a.size(), k.b.size()) - 2, 1);
  for (size_t d = 0; d < batch.size(); ++d) {
    const auto extent = [&](const Dims& x) {
      const size_t r = x.size() - 2;
      return d + r >= batch.size() ? x[d + r - batch.size()] : int64_t(1);
    };
    batch[d] = std::max(extent(k.a), extent(k.b));
  }
  Dims out = batch;
  out.push_back(m), out.push_back(n);
  const float factor = k.extreme ? 0x1p-16f : k.ties ? 0.5f : k.int8_out ? 0.0023f : 0.00037f;
  const int32_t lo = k.relu ? 0 : -128;
  Tensor y(k.int8_out ? DType::Int8 : DType::Float32, out);
  const int64_t batches = numel(batch);
  for (int64_t o = 0; o < batches; ++o) {
    const int64_t ia = operand_batch(k.a, batch, o) * m * kk, ib = operand_batch(k.b, batch, o) * kk * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t acc = 0;
        for (int64_t t = 0; t < kk; ++t) acc += int64_t(a.data<int8_t>()[ia + i * kk + t]) * b.data<int8_t>()[ib + t * n + j];
        const int64_t at = (o * m + i) * n + j;
        const float g = static_cast<float>(acc) * factor;
        if (!k.int8_out) {
          y.data<float>()[at] = g;
          continue;
        }
        const float r = std::nearbyint(g);
        y.data<int8_t>()[at] = int8_t(r < float(lo) ? lo : r > 127.0f ? 127 : int(r));
      }
  }
  std::map<std::string, Attribute> attrs = {{k.int8_out ? "multiplier" : "scale", Attribute::of_float(factor)}};
  if (k.int8_out) attrs["lo"] = Attribute::of_int(lo), attrs["hi"] = Attribute::of_int(127);
  std::string name = "QMatMul " + dims_to_string(k.a) + " · " + dims_to_string(k.b) + (k.int8_out ? " int8-out" : " float-out");
  if (k.extreme) name += " products 128²";
  if (k.ties) name += " ties";
  if (k.relu) name += " relu";
  OpCase c = make_case(name, make_node("QMatMul", {"a", "b"}, attrs, kInt8Domain), {a, b}, {false, false});
  c.expect = Expect::Bits, c.expected = {y};
  return c;
}

}  // namespace

std::vector<OpCase> qmatmul_cases() {
  const std::vector<MatMulCase> cases = {
      {{2, 3, 5, 7}, {2, 3, 7, 4}},                 // attention-shaped: [batch, heads, M, K]
      {{2, 3, 5, 7}, {2, 3, 7, 4}, false},          // float out (Q·Kᵀ before Softmax)
      {{1, 3, 17, 16}, {2, 1, 16, 33}},             // batch broadcast both ways, a tile's K
      {{4, 33, 31}, {31, 17}},                      // b without batch axes
      {{17, 33}, {33, 20}, false},                  // rank 2
      {{2, 2, 0}, {2, 0, 3}, false},                // K = 0: zeros
      {{1, 2, 3, 300}, {1, 2, 300, 5}, true, true}, // every product 128², acc = 4,915,200
      {{3, 9, 11}, {3, 11, 6}, true, false, true},  // M = 0.5: ties
      {{2, 16, 48}, {2, 48, 16}, true, false, false, true}};  // Relu folded
  std::vector<OpCase> out;
  for (size_t i = 0; i < cases.size(); ++i) out.push_back(matmul_case(cases[i], uint32_t(300 + i)));
  return out;
}

}  // namespace q8
