#include "engine/cpu/activations_avx2.h"
#include "engine/cpu/float_epilogue_row.h"

namespace q8 {

int64_t float_epilogue_row_avx2(const FloatEpilogueRow& q, int64_t n) {
  const __m256 min8 = _mm256_set1_ps(-128.0f), max8 = _mm256_set1_ps(127.0f), y_scale = _mm256_set1_ps(q.y_scale);
  constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 a = _mm256_cvtepi32_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(q.acc + i)));
    __m256 g = _mm256_add_ps(_mm256_mul_ps(a, _mm256_loadu_ps(q.s + i)), _mm256_loadu_ps(q.b + i));
    if (q.activation == FloatEpilogueRow::Activation::HardSwish) {
      g = avx2::hard_swish8(g);
    } else if (q.activation == FloatEpilogueRow::Activation::Sigmoid) {
      g = avx2::sigmoid8(g);
    } else if (q.activation == FloatEpilogueRow::Activation::Swish) {
      g = _mm256_mul_ps(g, avx2::sigmoid8(g));
    } else if (q.activation == FloatEpilogueRow::Activation::Gelu) {
      g = avx2::gelu8(g);
    }
    if (q.y_scale > 0.0f) {
      const __m256 z = _mm256_min_ps(_mm256_max_ps(_mm256_round_ps(_mm256_div_ps(g, y_scale), kNearest), min8), max8);
      const __m256i v = _mm256_cvtps_epi32(z);  // integers in [-128, 127]
      const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(static_cast<int8_t*>(q.y) + i), _mm_packs_epi16(words, words));
    } else {
      _mm256_storeu_ps(static_cast<float*>(q.y) + i, g);
    }
  }
  return i;
}

}  // namespace q8
