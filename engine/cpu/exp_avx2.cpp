#include "engine/cpu/exp8_avx2.h"
#include "engine/cpu/exp_wide.h"

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

}  // namespace q8
