// The rounded residual sum after an int8 output oneDNN requantized itself (docs/quantization.md,
// "Residual Add", the rounded modes; docs/cpu.md, "oneDNN's own requantization, where it is the
// reference's"): from the op's own y and the residual r, z = clamp(rne(fma(y, A, r · R)), lo, hi),
// or with the residual first clamp(rne(fma(r, R, y · A)), lo, hi), written over y. Through
// requantize_row's plain residual sum (t = y or r, b = 0, m = A or R): the same IEEE operations as
// q8_residual_sum, so the reference's bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/plan/reference/epilogue.h"

namespace q8 {

class RoundedResidual {
 public:
  // `bound` is an epilogue with rounded_residual().
  explicit RoundedResidual(const Epilogue& bound);
  // y[0, n) = z from y and residual[0, n), on the calling thread.
  void apply(int8_t* y, const int8_t* residual, int64_t n) const;

 private:
  bool residual_first_;
  float y_ratio_, r_scale_;  // A and R
  ClampBounds bounds_;
  std::vector<int32_t> zeros_;  // the bias b = 0 of a chunk
  std::vector<float> first_scales_;  // the scale of the fma's first operand (A, or R with the residual first), a chunk of it
};

}  // namespace q8
