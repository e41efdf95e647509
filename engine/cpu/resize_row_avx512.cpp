#include <immintrin.h>

#include "engine/cpu/resize_row.h"

namespace q8 {

namespace {

// sum + wt · v where wt ≠ 0, else sum: the scalar loop's `if (wt != 0) sum += wt * v`.
__m512 corner(__m512 sum, __m512 wt, __m512 v) {
  const __mmask16 taken = _mm512_cmp_ps_mask(wt, _mm512_setzero_ps(), _CMP_NEQ_UQ);
  return _mm512_mask_add_ps(sum, taken, sum, _mm512_mul_ps(wt, v));
}

}  // namespace

int64_t linear_resize_row_avx512(const LinearResizeRow& r, int64_t n) {
  const float* __restrict row0 = r.row0;
  const float* __restrict row1 = r.row1;
  float* __restrict dst = r.dst;
  const __m512 wh0 = _mm512_set1_ps(r.wh0), wh1 = _mm512_set1_ps(r.wh1);
  for (int64_t x = 0; x < n; x += 16) {
    const __mmask16 m = n - x >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - x)) - 1);
    const __m512i c0 = _mm512_maskz_loadu_epi32(m, r.c0 + x), c1 = _mm512_maskz_loadu_epi32(m, r.c1 + x);
    const __m512 w0 = _mm512_maskz_loadu_ps(m, r.w0 + x), w1 = _mm512_maskz_loadu_ps(m, r.w1 + x);
    const __m512 zero = _mm512_setzero_ps();
    // Lanes past n gather column 0 (their index is 0), which every row has, and are not stored.
    const __m512 a0 = _mm512_mask_i32gather_ps(zero, m, c0, row0, 4), b0 = _mm512_mask_i32gather_ps(zero, m, c0, row1, 4);
    const __m512 a1 = _mm512_mask_i32gather_ps(zero, m, c1, row0, 4), b1 = _mm512_mask_i32gather_ps(zero, m, c1, row1, 4);
    __m512 sum = _mm512_setzero_ps();
    sum = corner(sum, _mm512_mul_ps(wh0, w0), a0);
    sum = corner(sum, _mm512_mul_ps(wh1, w0), b0);
    sum = corner(sum, _mm512_mul_ps(wh0, w1), a1);
    sum = corner(sum, _mm512_mul_ps(wh1, w1), b1);
    _mm512_mask_storeu_ps(dst + x, m, sum);
  }
  return n;
}

}  // namespace q8
