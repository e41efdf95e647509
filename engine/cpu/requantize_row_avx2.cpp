#include <immintrin.h>

#include "engine/cpu/requantize_row.h"

namespace q8 {

int64_t requantize_row_avx2(const RequantizeRow& q, int64_t n) {
  const __m256 low = _mm256_set1_ps(float(q.lo)), high = _mm256_set1_ps(float(q.hi));
  const __m256 min8 = _mm256_set1_ps(-128.0f), max8 = _mm256_set1_ps(127.0f);
  const __m256 r_scale = _mm256_set1_ps(q.r_scale), y_ratio = _mm256_set1_ps(q.y_ratio);
  constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q.acc + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q.bias + i));
    const __m256i t = _mm256_add_epi32(a, b);
    // Signed overflow: both operands' signs differ from the sum's.
    const __m256i wrapped = _mm256_and_si256(_mm256_xor_si256(a, t), _mm256_xor_si256(b, t));
    if (_mm256_movemask_ps(_mm256_castsi256_ps(wrapped)) != 0) return i;
    const __m256 tf = _mm256_cvtepi32_ps(t), m = _mm256_loadu_ps(q.m + i);
    __m256 g;
    if (!q.residual) {
      g = _mm256_mul_ps(tf, m);
    } else {
      const __m256 r = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(q.residual + i))));
      if (q.mode == ResidualSum::Plain) {
        g = _mm256_fmadd_ps(tf, m, _mm256_mul_ps(r, r_scale));
      } else {
        const __m256 y = _mm256_min_ps(_mm256_max_ps(_mm256_round_ps(_mm256_mul_ps(tf, m), kNearest), min8), max8);
        g = q.mode == ResidualSum::Rounded ? _mm256_fmadd_ps(y, y_ratio, _mm256_mul_ps(r, r_scale))
                                                   : _mm256_fmadd_ps(r, r_scale, _mm256_mul_ps(y, y_ratio));
      }
    }
    const __m256 z = _mm256_min_ps(_mm256_max_ps(_mm256_round_ps(g, kNearest), low), high);
    const __m256i v = _mm256_cvtps_epi32(z);  // integers in [-128, 127]
    const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(q.y + i), _mm_packs_epi16(words, words));
  }
  return i;
}

}  // namespace q8
