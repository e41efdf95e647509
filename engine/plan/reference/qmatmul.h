// The shape of a QMatMul (docs/quantization.md, "Batched MatMul of two activations"), worked out
// once for the reference and the devices: sizes, the broadcast batch, and each batch's offsets
// into a and b.
#pragma once

#include <string>
#include <vector>

#include "engine/ir/tensor.h"

namespace q8 {

// K · 128 · 128 ≤ 2^31 − 1: both operands are activations, |a_q|, |b_q| ≤ 128.
inline constexpr int64_t kQMatMulMaxK = 131071;

struct QMatMulShape {
  int64_t m = 0, k = 0, n = 0;
  Dims batch, out;                           // out = batch + [m, n]
  std::vector<int64_t> a_offset, b_offset;   // per batch (numel(batch) of them), in elements
  // Error naming `name` where the shapes do not multiply or K passes kQMatMulMaxK.
  static QMatMulShape of(const Dims& a, const Dims& b, const std::string& name);
};

}  // namespace q8
