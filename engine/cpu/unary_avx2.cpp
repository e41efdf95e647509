#include "engine/cpu/activations_avx2.h"
#include "engine/cpu/unary_wide.h"

namespace q8 {

int64_t exp_avx2(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, avx2::exp8(_mm256_loadu_ps(x + i)));
  return i;
}

int64_t sigmoid_avx2(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, avx2::sigmoid8(_mm256_loadu_ps(x + i)));
  return i;
}

int64_t hard_swish_avx2(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, avx2::hard_swish8(_mm256_loadu_ps(x + i)));
  return i;
}

}  // namespace q8
