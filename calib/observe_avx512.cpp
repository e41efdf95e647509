#include "calib/observe_avx512.h"

#include <immintrin.h>

namespace q8 {

int64_t scan_and_bin_avx512(const float* p, int64_t n, float inv, int64_t top, uint32_t* local, ScanTotals& totals) {
  const __m512i exponent = _mm512_set1_epi32(0x7f800000);
  const __m512i abs_mask = _mm512_set1_epi32(0x7fffffff);
  const __m512 scale = _mm512_set1_ps(inv), cap = _mm512_set1_ps(float(top)), zero = _mm512_setzero_ps();
  __m512 lo = _mm512_set1_ps(totals.lo), hi = _mm512_set1_ps(totals.hi);
  uint32_t zeros = 0, nonfinite = 0;
  alignas(64) int32_t bins[16];
  const int64_t stride = top + 1;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(p + i);
    const __m512i bits = _mm512_castps_si512(v);
    const __mmask16 finite = _mm512_cmpneq_epi32_mask(_mm512_and_si512(bits, exponent), exponent);
    nonfinite += 16 - uint32_t(__builtin_popcount(finite));
    zeros += uint32_t(__builtin_popcount(_mm512_cmp_ps_mask(v, zero, _CMP_EQ_OQ)));
    lo = _mm512_mask_mov_ps(lo, finite & _mm512_cmp_ps_mask(v, lo, _CMP_LT_OQ), v);
    hi = _mm512_mask_mov_ps(hi, finite & _mm512_cmp_ps_mask(v, hi, _CMP_GT_OQ), v);
    // min(|v| · inv, top): MINPS returns its second operand when the first is NaN.
    const __m512 scaled = _mm512_mul_ps(_mm512_castsi512_ps(_mm512_and_si512(bits, abs_mask)), scale);
    _mm512_store_si512(bins, _mm512_cvttps_epi32(_mm512_min_ps(scaled, cap)));
    for (int k = 0; k < 16; ++k) ++local[(k & 3) * stride + bins[k]];
  }
  // Lane minima and maxima fold in the scalar loop's order-free way (min and max are exact).
  alignas(64) float l[16], h[16];
  _mm512_store_ps(l, lo);
  _mm512_store_ps(h, hi);
  for (int k = 0; k < 16; ++k) {
    if (l[k] < totals.lo) totals.lo = l[k];
    if (h[k] > totals.hi) totals.hi = h[k];
  }
  totals.zeros += zeros, totals.nonfinite += nonfinite;
  return i;
}

}  // namespace q8
