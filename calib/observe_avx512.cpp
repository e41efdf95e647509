#include "calib/observe_avx512.h"

#include <immintrin.h>

namespace q8 {

int64_t scan_and_bin_avx512(const float* p, int64_t n, float inv, int64_t top, uint16_t* local, ScanTotals& totals) {
  const __m512i exponent = _mm512_set1_epi32(0x7f800000);
  const __m512i abs_mask = _mm512_set1_epi32(0x7fffffff);
  const __m512 scale = _mm512_set1_ps(inv), cap = _mm512_set1_ps(float(top)), zero = _mm512_setzero_ps();
  __m512 lo = _mm512_set1_ps(totals.lo), hi = _mm512_set1_ps(totals.hi);
  uint32_t zeros = 0, nonfinite = 0;
  const int32_t stride = int32_t(top + 1);
  const __m512i copy = _mm512_setr_epi32(0, stride, 2 * stride, 3 * stride, 0, stride, 2 * stride, 3 * stride, 0, stride,
                                         2 * stride, 3 * stride, 0, stride, 2 * stride, 3 * stride);
  const __m512i zero_slot = _mm512_add_epi32(_mm512_set1_epi32(4 * stride), _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
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
    // Lane k counts into copy k % 4, except zeros (runs of them follow ReLU), which go to a
    // slot of their own per lane: repeated increments of one count form a chain through
    // memory, and the zeros are counted above anyway. The 16 indices (each < 2^16) leave the
    // register packed four to a 64-bit word: four moves to general registers instead of 16.
    const __m512i b = _mm512_add_epi32(_mm512_cvttps_epi32(_mm512_min_ps(scaled, cap)), copy);
    const __m512i at = _mm512_mask_mov_epi32(b, _mm512_cmp_ps_mask(v, zero, _CMP_EQ_OQ), zero_slot);
    const __m256i packed = _mm512_cvtepi32_epi16(at);
    const __m128i low = _mm256_castsi256_si128(packed), high = _mm256_extracti128_si256(packed, 1);
    const uint64_t words[4] = {uint64_t(_mm_cvtsi128_si64(low)), uint64_t(_mm_extract_epi64(low, 1)),
                               uint64_t(_mm_cvtsi128_si64(high)), uint64_t(_mm_extract_epi64(high, 1))};
    for (uint64_t word : words) {
      ++local[word & 0xffff];
      ++local[(word >> 16) & 0xffff];
      ++local[(word >> 32) & 0xffff];
      ++local[word >> 48];
    }
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

int64_t scan_avx512(const float* p, int64_t n, ScanTotals& totals) {
  const __m512i exponent = _mm512_set1_epi32(0x7f800000);
  const __m512 zero = _mm512_setzero_ps();
  __m512 lo = _mm512_set1_ps(totals.lo), hi = _mm512_set1_ps(totals.hi);
  uint32_t zeros = 0, nonfinite = 0;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(p + i);
    const __mmask16 finite = _mm512_cmpneq_epi32_mask(_mm512_and_si512(_mm512_castps_si512(v), exponent), exponent);
    nonfinite += 16 - uint32_t(__builtin_popcount(finite));
    zeros += uint32_t(__builtin_popcount(_mm512_cmp_ps_mask(v, zero, _CMP_EQ_OQ)));
    lo = _mm512_mask_mov_ps(lo, finite & _mm512_cmp_ps_mask(v, lo, _CMP_LT_OQ), v);
    hi = _mm512_mask_mov_ps(hi, finite & _mm512_cmp_ps_mask(v, hi, _CMP_GT_OQ), v);
  }
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
