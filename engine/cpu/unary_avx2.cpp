#include "engine/cpu/activations_avx2.h"
#include "engine/cpu/unary_wide.h"

namespace q8 {

namespace {

// y[i] = f(x[i]) 8 values at a time; returns how many it wrote.
template <__m256 (*f)(__m256)>
int64_t map8(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, f(_mm256_loadu_ps(x + i)));
  return i;
}

}  // namespace

int64_t exp_avx2(const float* x, float* y, int64_t n) { return map8<avx2::exp8>(x, y, n); }
int64_t sigmoid_avx2(const float* x, float* y, int64_t n) { return map8<avx2::sigmoid8>(x, y, n); }
int64_t hard_swish_avx2(const float* x, float* y, int64_t n) { return map8<avx2::hard_swish8>(x, y, n); }
int64_t erf_avx2(const float* x, float* y, int64_t n) { return map8<avx2::erf8>(x, y, n); }
int64_t gelu_avx2(const float* x, float* y, int64_t n) { return map8<avx2::gelu8>(x, y, n); }

}  // namespace q8
