// The observer's one-pass scan with AVX-512: the same statistics and bins as the scalar loop in
// tensor_observer.cpp, value for value (integer counts, exact min and max), 16 values at a time.
#pragma once

#include <cstdint>

namespace q8 {

// Copies of the bin counts the scan deals values to in turn: an increment to a count waits for
// the last one to the same count, and neighbouring values often share a bin.
inline constexpr int kBinCopies = 4;

struct ScanTotals {
  float lo, hi;  // over finite values, updated as v < lo / v > hi (as the scalar loop); after
                 // scan_and_bin_avx512 ±Inf too, but a scan that met them has binned them at top
  uint32_t zeros, nonfinite;
};

// How values map to bins: |v| · pos for v >= 0, and |v| · neg + neg_offset for v < 0. An observer
// of |x| has pos = neg and neg_offset 0; a signed one (a Relu's input, docs/calibration.md) puts
// negative values in a second histogram, neg_offset = top + 1 entries further on, at its own width.
struct BinScales {
  float pos, neg;
  int64_t neg_offset;
};

// For the first n - n % 16 values of p: counts |v| · scale, truncated and capped at `top` (NaN
// and ±Inf at `top`), plus the offset for negative values, into the copies local[k · stride + bin],
// k < kBinCopies, the non-zero values dealt to the copies in turn, so no copy takes more than its
// share of them, rounded up. Zeros it only counts, in totals.zeros (the caller adds them to bin
// 0). Returns how many values it took. The caller keeps n / kBinCopies + 1 ≤ 65,535 so no 16-bit
// count overflows. NaN and ±Inf are not counted in totals.nonfinite: the top bins are where the
// caller learns of them.
int64_t scan_and_bin_avx512(const float* p, int64_t n, BinScales scales, int64_t top, int64_t stride, uint16_t* local,
                            ScanTotals& totals);

// The same statistics without the bins (observers that keep no histogram).
int64_t scan_avx512(const float* p, int64_t n, ScanTotals& totals);

}  // namespace q8
