// Whether a weighted node's epilogue goes to oneDNN: plain requantization, or the op's own
// rounding before a rounded residual sum (which rounded_residual.h then adds), within the bound
// under which oneDNN's float arithmetic is the reference's (docs/cpu.md, "oneDNN's own
// requantization, where it is the reference's").
#pragma once

#include <optional>

#include "engine/cpu/int8_primitive.h"
#include "engine/plan/reference/epilogue.h"

namespace q8 {

// The requantization a bound epilogue asks of a kernel that writes int8 itself (plain
// requantization, or the op's own rounding before a rounded residual sum), with `channels`
// output channels; nothing for any other epilogue.
inline std::optional<Int8Requantization> requantization_of(const Epilogue& bound, int64_t channels) {
  const bool rounded = bound.rounded_residual();
  if (!bound.plain_requantization() && !rounded) return std::nullopt;
  Int8Requantization r;
  r.bias.assign(bound.bias_q(), bound.bias_q() + channels);
  r.scale.assign(bound.scale(), bound.scale() + channels);
  if (!rounded) {  // a rounded residual's own rounding keeps int8's whole range, [−128, 127]
    r.lo = bound.bounds().lo;
    r.hi = bound.bounds().hi;
  }
  return r;
}

// The requantization for oneDNN's primitives, or nothing (the int32 sums and q8's epilogue): a
// bound epilogue, the constant weights, channel c's k_count weights at w[c · channel_stride +
// k · k_stride].
inline std::optional<Int8Requantization> onednn_requantization(const Epilogue& bound, const int8_t* w, int64_t channels, int64_t channel_stride,
                                                               int64_t k_count, int64_t k_stride) {
  if (!bound.plain_requantization() && !bound.rounded_residual()) return std::nullopt;
  if (!requantization_is_exact(w, channels, channel_stride, k_count, k_stride, bound.bias_q())) return std::nullopt;
  return requantization_of(bound, channels);
}

}  // namespace q8
