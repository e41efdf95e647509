#include <immintrin.h>

#include "engine/cpu/quantize_int8.h"

namespace q8 {

int64_t quantize_int8_avx2(const float* x, int8_t* y, int64_t n, float s, float z) {
  const __m256 scale = _mm256_set1_ps(s), zero = _mm256_set1_ps(z), lo = _mm256_set1_ps(-128.0f), hi = _mm256_set1_ps(127.0f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 r = _mm256_round_ps(_mm256_div_ps(_mm256_loadu_ps(x + i), scale), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    // max(q, -128) gives -128 for a NaN (MAXPS returns its second operand), as the scalar loop.
    const __m256 q = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(r, zero), lo), hi);
    const __m256i v = _mm256_cvtps_epi32(q);  // integers in [-128, 127]
    const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(y + i), _mm_packs_epi16(words, words));
  }
  return i;
}

}  // namespace q8
