// Round half to even: the one rounding rule of q8's quantization and requantization
// (docs/quantization.md). 2.5 → 2, 3.5 → 4, −2.5 → −2. Exact for every float and double in the
// default floating-point environment (round to nearest); NaN and infinities pass through.
#pragma once

#include <cmath>

namespace q8 {

inline float round_half_even(float v) {
  // Below 2^22, adding and removing 1.5·2^23 leaves v rounded to an integer (not an identity in
  // IEEE arithmetic, so never folded away); a float of magnitude 2^23 or more is already an
  // integer, and the few between take the library call.
  constexpr float kMagic = 12582912.0f;  // 1.5 · 2^23
  if (std::fabs(v) < 4194304.0f) return (v + kMagic) - kMagic;
  return std::nearbyint(v);
}

inline double round_half_even(double v) { return std::nearbyint(v); }

}  // namespace q8
