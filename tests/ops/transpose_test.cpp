// Transpose against the definition written here: y[i_0, …, i_{r−1}] = x[j] with j_{perm[k]} = i_k.
// Every permutation of ranks 2 to 4 and some of rank 5, on every element width (int8, float16's 2
// bytes, float32 as bit patterns, int64), with sizes below, at and past the copy's 4 × 4 and 8 × 8
// blocks and 32 × 32 tiles, so each of the op's paths runs: the channels-last moves, the tiled
// moves of a last axis to the last but one (attention's Kᵀ), and the general strided copy.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "tests/ops/op_harness.h"

namespace q8 {
namespace {

template <typename T>
void check_permutation(const Dims& dims, const std::vector<int64_t>& perm, DType dtype, std::mt19937_64& rng) {
  Tensor x(dtype, dims);
  T* px = reinterpret_cast<T*>(x.raw());
  for (int64_t i = 0; i < x.numel(); ++i) px[i] = T(rng());
  Node node;
  node.op_type = "Transpose";
  node.name = "transpose";
  node.inputs = {"x"};
  node.outputs = {"y"};
  node.attributes["perm"] = Attribute::of_ints(perm);
  const Tensor y = run_op(node, {&x}, 13)[0];
  const size_t rank = dims.size();
  Dims out(rank);
  for (size_t k = 0; k < rank; ++k) out[k] = dims[size_t(perm[k])];
  ASSERT_EQ(y.dims(), out);
  const T* py = reinterpret_cast<const T*>(y.raw());
  std::vector<int64_t> idx(rank, 0), source(rank);
  for (int64_t o = 0; o < y.numel(); ++o) {
    for (size_t k = 0; k < rank; ++k) source[size_t(perm[k])] = idx[k];
    int64_t flat = 0;
    for (size_t d = 0; d < rank; ++d) flat = flat * dims[d] + source[d];
    ASSERT_EQ(py[o], px[flat]) << dims_to_string(dims) << " perm " << ::testing::PrintToString(perm) << ", " << dtype_name(dtype)
                               << ", flat output " << o;
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < out[d]) break;
      idx[d] = 0;
    }
  }
}

void check_every_width(const Dims& dims, const std::vector<int64_t>& perm, std::mt19937_64& rng) {
  check_permutation<int8_t>(dims, perm, DType::Int8, rng);
  check_permutation<uint16_t>(dims, perm, DType::Float16, rng);
  check_permutation<uint32_t>(dims, perm, DType::Float32, rng);
  check_permutation<int64_t>(dims, perm, DType::Int64, rng);
}

TEST(TransposeOp, EveryPermutationPutsEachValueWhereTheDefinitionSays) {
  std::mt19937_64 rng(17);
  const std::vector<Dims> shapes = {{5, 9}, {33, 40}, {3, 7, 12}, {2, 37, 8}, {2, 3, 5, 7}, {2, 12, 9, 16}, {1, 6, 33, 4}};
  for (const Dims& dims : shapes) {
    std::vector<int64_t> perm(dims.size());
    std::iota(perm.begin(), perm.end(), 0);
    do check_every_width(dims, perm, rng);
    while (std::next_permutation(perm.begin(), perm.end()));
  }
  for (const std::vector<int64_t>& perm : std::vector<std::vector<int64_t>>{{0, 2, 3, 4, 1}, {0, 4, 1, 2, 3}, {4, 3, 2, 1, 0}, {0, 1, 3, 4, 2}})
    check_every_width({2, 5, 3, 8, 6}, perm, rng);
}

}  // namespace
}  // namespace q8
