// The observer's one-pass scan with AVX-512: the same statistics and bins as the scalar loop in
// tensor_observer.cpp, value for value (integer counts, exact min and max), 16 values at a time.
#pragma once

#include <cstdint>

namespace q8 {

struct ScanTotals {
  float lo, hi;              // over finite values, updated as v < lo / v > hi (as the scalar loop)
  uint32_t zeros, nonfinite;
};

// For the first n - n % 16 values of p: counts |v| · inv, truncated and capped at `top` (NaN and
// ±Inf at `top`), into local[(i % 4) · (top + 1) + bin], except zeros, which it only counts in
// totals.zeros (and which the caller adds to bin 0); local has 4 · (top + 1) + 16 entries, the
// last 16 scratch. Returns how many values it took. The caller keeps n ≤ 4 · 65,535 so no 16-bit
// count overflows, and 4 · (top + 1) + 16 ≤ 65,536 (indices are 16-bit).
int64_t scan_and_bin_avx512(const float* p, int64_t n, float inv, int64_t top, uint16_t* local, ScanTotals& totals);

// The same statistics without the bins (observers that keep no histogram).
int64_t scan_avx512(const float* p, int64_t n, ScanTotals& totals);

}  // namespace q8
