#include "engine/cpu/unary_wide.h"

#include <immintrin.h>

#include "engine/cpu/activations_avx512.h"

namespace q8 {

namespace {

using namespace avx512;

// y[i] = f(x[i]) 16 values at a time; returns how many it wrote.
template <__m512 (*f)(__m512)>
int64_t map16(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, f(_mm512_loadu_ps(x + i)));
  return i;
}

}  // namespace

int64_t erf_avx512(const float* x, float* y, int64_t n) { return map16<erf16>(x, y, n); }
int64_t gelu_avx512(const float* x, float* y, int64_t n) { return map16<gelu16>(x, y, n); }

int64_t exp_avx512(const float* x, float* y, int64_t n) { return map16<exp16>(x, y, n); }
int64_t sigmoid_avx512(const float* x, float* y, int64_t n) { return map16<sigmoid16>(x, y, n); }

}  // namespace q8
