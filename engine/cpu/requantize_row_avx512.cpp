#include <immintrin.h>

#include "engine/cpu/requantize_row.h"

namespace q8 {

int64_t requantize_row_avx512(const RequantizeRow& q, int64_t n) {
  const __m512 low = _mm512_set1_ps(float(q.lo)), high = _mm512_set1_ps(float(q.hi));
  const __m512 min8 = _mm512_set1_ps(-128.0f), max8 = _mm512_set1_ps(127.0f);
  const __m512 r_scale = _mm512_set1_ps(q.r_scale), y_ratio = _mm512_set1_ps(q.y_ratio);
  constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i a = _mm512_loadu_si512(q.acc + i), b = _mm512_loadu_si512(q.bias + i);
    const __m512i t = _mm512_add_epi32(a, b);
    // Signed overflow: both operands' signs differ from the sum's.
    const __m512i wrapped = _mm512_and_si512(_mm512_xor_si512(a, t), _mm512_xor_si512(b, t));
    if (_mm512_cmplt_epi32_mask(wrapped, _mm512_setzero_si512()) != 0) return i;
    const __m512 tf = _mm512_cvtepi32_ps(t), m = _mm512_loadu_ps(q.m + i);
    __m512 g;
    if (!q.residual) {
      g = _mm512_mul_ps(tf, m);
    } else {
      const __m512 r = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q.residual + i))));
      if (q.mode == ResidualSum::Plain) {
        g = _mm512_fmadd_ps(tf, m, _mm512_mul_ps(r, r_scale));
      } else {
        const __m512 y = _mm512_min_ps(_mm512_max_ps(_mm512_roundscale_ps(_mm512_mul_ps(tf, m), kNearest), min8), max8);
        g = q.mode == ResidualSum::Rounded ? _mm512_fmadd_ps(y, y_ratio, _mm512_mul_ps(r, r_scale))
                                                   : _mm512_fmadd_ps(r, r_scale, _mm512_mul_ps(y, y_ratio));
      }
    }
    const __m512 z = _mm512_min_ps(_mm512_max_ps(_mm512_roundscale_ps(g, kNearest), low), high);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q.y + i), _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(z)));
  }
  return i;
}

}  // namespace q8
