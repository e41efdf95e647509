#include "engine/cpu/activations_avx512.h"
#include "engine/cpu/float_epilogue_row.h"

namespace q8 {

// float_epilogue_row_avx2's steps on 16 lanes (the activations of activations_avx512.h).
int64_t float_epilogue_row_avx512(const FloatEpilogueRow& q, int64_t n) {
  const __m512 min8 = _mm512_set1_ps(-128.0f), max8 = _mm512_set1_ps(127.0f), y_scale = _mm512_set1_ps(q.y_scale);
  constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  // Locals, not the struct's fields: an int8 store may alias them, and they would be reloaded.
  const int32_t* __restrict acc = q.acc;
  const float* __restrict s = q.s;
  const float* __restrict b = q.b;
  int8_t* __restrict y8 = static_cast<int8_t*>(q.y);
  float* __restrict y32 = static_cast<float*>(q.y);
  const bool int8_out = q.y_scale > 0.0f;
  const FloatEpilogueRow::Activation activation = q.activation;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 a = _mm512_cvtepi32_ps(_mm512_loadu_si512(acc + i));
    __m512 g = _mm512_add_ps(_mm512_mul_ps(a, _mm512_loadu_ps(s + i)), _mm512_loadu_ps(b + i));
    if (activation == FloatEpilogueRow::Activation::HardSwish) {
      g = avx512::hard_swish16(g);
    } else if (activation == FloatEpilogueRow::Activation::Sigmoid) {
      g = avx512::sigmoid16(g);
    } else if (activation == FloatEpilogueRow::Activation::Swish) {
      g = _mm512_mul_ps(g, avx512::sigmoid16(g));
    } else if (activation == FloatEpilogueRow::Activation::Gelu) {
      g = avx512::gelu16(g);
    }
    if (int8_out) {
      const __m512 z = _mm512_min_ps(_mm512_max_ps(_mm512_roundscale_ps(_mm512_div_ps(g, y_scale), kNearest), min8), max8);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(y8 + i), _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(z)));
    } else {
      _mm512_storeu_ps(y32 + i, g);
    }
  }
  return i;
}

}  // namespace q8
