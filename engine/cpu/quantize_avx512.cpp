#include <immintrin.h>

#include "engine/cpu/quantize_int8.h"

namespace q8 {

int64_t quantize_int8_avx512(const float* x, int8_t* y, int64_t n, float s, float z) {
  const __m512 scale = _mm512_set1_ps(s), zero = _mm512_set1_ps(z), lo = _mm512_set1_ps(-128.0f), hi = _mm512_set1_ps(127.0f);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 r = _mm512_roundscale_ps(_mm512_div_ps(_mm512_loadu_ps(x + i), scale), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    // max(q, -128) gives -128 for a NaN (MAXPS returns its second operand), as the scalar loop.
    const __m512 q = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(r, zero), lo), hi);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(q)));
  }
  return i;
}

}  // namespace q8
