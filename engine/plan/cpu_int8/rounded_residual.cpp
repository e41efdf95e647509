#include "engine/plan/cpu_int8/rounded_residual.h"

#include <algorithm>
#include <cstring>

#include "engine/cpu/requantize_row.h"
#include "engine/plan/requantize.h"

namespace q8 {

namespace {
constexpr int64_t kChunk = 1024;  // values a requantize_row call: its int32 operand stays in L1
}  // namespace

RoundedResidual::RoundedResidual(const Epilogue& bound)
    : residual_first_(bound.residual_first()),
      y_ratio_(bound.sum_scale()),
      r_scale_(bound.residual_scale()),
      bounds_(bound.bounds()),
      zeros_(size_t(kChunk), 0),
      first_scales_(size_t(kChunk), residual_first_ ? r_scale_ : y_ratio_) {}

void RoundedResidual::apply(int8_t* y, const int8_t* residual, int64_t n) const {
  int32_t first[kChunk];  // the fma's first operand, widened: y, or r with the residual first
  int8_t second[kChunk];  // with the residual first, y's own copy (it is written over)
  // q8_requantized_sum(t, m, r, r_scale): rr = (float)r · r_scale, g = fma((float)t, m, rr).
  const float first_scale = residual_first_ ? r_scale_ : y_ratio_, second_scale = residual_first_ ? y_ratio_ : r_scale_;
  for (int64_t at = 0; at < n; at += kChunk) {
    const int64_t count = std::min(kChunk, n - at);
    const int8_t* a = residual_first_ ? residual + at : y + at;
    for (int64_t i = 0; i < count; ++i) first[i] = a[i];
    const int8_t* b = residual + at;
    if (residual_first_) {
      std::memcpy(second, y + at, size_t(count));
      b = second;
    }
    const RequantizeRow row{first, zeros_.data(), first_scales_.data(), b, ResidualSum::Plain, second_scale, 0.0f, bounds_.lo, bounds_.hi, y + at};
    const int64_t done = requantize_row(row, count);
    for (int64_t i = done; i < count; ++i) y[at + i] = int8_t(q8_requantized_sum(first[i], first_scale, b[i], second_scale, bounds_.lo, bounds_.hi));
  }
}

}  // namespace q8
