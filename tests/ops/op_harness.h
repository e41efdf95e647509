// Helpers for op tests: random tensors, running one op, comparing floats statistically.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/ops/op.h"

namespace q8 {

inline Tensor random_tensor(const Dims& dims, uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
  Tensor t(DType::Float32, dims);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (float& v : t.values<float>()) v = dist(rng);
  return t;
}

inline std::vector<Tensor> run_op(const Node& node, const Inputs& inputs, int64_t opset = 17) {
  const OpInfo* info = find_op(node.op_type);
  if (!info) throw Error("no op " + node.op_type);
  return info->create(node, OpContext{opset, {}})->run(inputs);
}

// |got − want| <= tol · (1 + |want|) everywhere, and the mean signed difference (bias from
// rounding) is within tol / 10. Prints the first differing index.
inline void expect_close(const Tensor& got, const Tensor& want, double tol) {
  ASSERT_EQ(dims_to_string(got.dims()), dims_to_string(want.dims()));
  double signed_sum = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double g = got.data<float>()[i], w = want.data<float>()[i];
    signed_sum += g - w;
    if (std::fabs(g - w) > tol * (1 + std::fabs(w))) {
      ADD_FAILURE() << "first difference at flat index " << i << ": got " << g << ", want " << w;
      return;
    }
  }
  if (want.numel()) {
    EXPECT_LE(std::fabs(signed_sum / double(want.numel())), tol / 10) << "mean signed difference";
  }
}

}  // namespace q8
