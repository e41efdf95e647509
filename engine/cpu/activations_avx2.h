// q8_exp, q8_sigmoid (kernels/exp.cl), q8_hard_swish (kernels/epilogue_activation.cl), q8_erf and
// q8_gelu (kernels/gelu.cl) on 8 floats with AVX2 and FMA, for the files built with -mavx2 -mfma that use them
// (engine/cpu/unary_avx2.cpp, engine/cpu/float_epilogue_row_avx2.cpp).
#pragma once

#include <immintrin.h>

#include "engine/cpu/erf_coefficients.h"

namespace q8::avx2 {

// kernels/exp.cl step by step, as unary_avx512.cpp: its constants, its fused multiply-adds, and its
// branches as blends.
inline __m256 exp8(__m256 x) {
  const __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  const __m256 over = _mm256_cmp_ps(x, _mm256_set1_ps(88.72283935546875f), _CMP_GT_OQ);
  const __m256 under = _mm256_cmp_ps(x, _mm256_set1_ps(-103.97208404541015625f), _CMP_LT_OQ);
  // rint: round half to even, as the default rounding mode.
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269502162933349609375f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fmadd_ps(n, _mm256_set1_ps(-0.693359375f), x);
  r = _mm256_fmadd_ps(n, _mm256_set1_ps(2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  const __m256 y = _mm256_add_ps(_mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r), _mm256_set1_ps(1.0f));
  // k = (int)n (exact: n is an integer), k1 = k / 2 rounded toward zero as C's division. Where n
  // is out of int's range (x NaN or beyond the bounds) the lanes are replaced below.
  const __m256i k = _mm256_cvttps_epi32(n);
  const __m256i k1 = _mm256_srai_epi32(_mm256_add_epi32(k, _mm256_srli_epi32(k, 31)), 1);
  const __m256i bias = _mm256_set1_epi32(127);
  const __m256 pow_k1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k1, bias), 23));
  const __m256 pow_rest = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(k, k1), bias), 23));
  __m256 e = _mm256_mul_ps(_mm256_mul_ps(y, pow_k1), pow_rest);
  e = _mm256_blendv_ps(e, _mm256_setzero_ps(), under);
  e = _mm256_blendv_ps(e, _mm256_mul_ps(x, _mm256_set1_ps(2.0e38f)), over);
  return _mm256_blendv_ps(e, x, nan);
}

// q8_sigmoid: 1 / (1 + q8_exp(−x)), a NaN as x + x.
inline __m256 sigmoid8(__m256 v) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 minus_v = _mm256_xor_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(int(0x80000000u))));
  const __m256 s = _mm256_div_ps(one, _mm256_add_ps(one, exp8(minus_v)));
  return _mm256_blendv_ps(s, _mm256_add_ps(v, v), _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

// q8_hard_swish: t = v / 6 + 1/2, its clamp to [0, 1], times v; a NaN v as v + v.
inline __m256 hard_swish8(__m256 v) {
  const __m256 t = _mm256_add_ps(_mm256_div_ps(v, _mm256_set1_ps(6.0f)), _mm256_set1_ps(0.5f));
  const __m256 lo = _mm256_min_ps(t, _mm256_set1_ps(1.0f));           // t < 1 ? t : 1, and 1 for a NaN t
  const __m256 y = _mm256_mul_ps(v, _mm256_max_ps(lo, _mm256_setzero_ps()));  // 0 < lo ? lo : 0 (lo is no NaN)
  return _mm256_blendv_ps(y, _mm256_add_ps(v, v), _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

// p = c[0]; p = fma(p, z, c[i]) for i = 1 … N−1: gelu.cl's Horner steps.
template <int N>
inline __m256 horner8(const float (&c)[N], __m256 z) {
  __m256 p = _mm256_set1_ps(c[0]);
  for (int i = 1; i < N; ++i) p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(c[i]));
  return p;
}

// q8_erf: x · T(x²) below 1; ±1 from 4; between, 1 − e^(−a²) / a · P(1/a²) (a < 2) or R(1/a²),
// with the sign of x; a NaN as it came. Every lane computes every branch; blends pick.
inline __m256 erf8(__m256 x) {
  using namespace erf_coefficients;
  const __m256 sign = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
  const __m256 a = _mm256_andnot_ps(sign, x);
  const __m256 negative = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ);
  const __m256 small = _mm256_mul_ps(x, horner8(kT, _mm256_mul_ps(x, x)));
  const __m256 e = exp8(_mm256_xor_ps(_mm256_mul_ps(a, a), sign)), y = _mm256_div_ps(one, a), z = _mm256_mul_ps(y, y);
  const __m256 poly = _mm256_blendv_ps(horner8(kR, z), horner8(kP, z), _mm256_cmp_ps(a, _mm256_set1_ps(2.0f), _CMP_LT_OQ));
  const __m256 v = _mm256_sub_ps(one, _mm256_mul_ps(_mm256_mul_ps(e, y), poly));
  __m256 r = _mm256_blendv_ps(v, _mm256_xor_ps(v, sign), negative);
  r = _mm256_blendv_ps(r, _mm256_blendv_ps(one, _mm256_set1_ps(-1.0f), negative),
                       _mm256_cmp_ps(a, _mm256_set1_ps(4.0f), _CMP_GE_OQ));
  r = _mm256_blendv_ps(r, small, _mm256_cmp_ps(a, one, _CMP_LT_OQ));
  return _mm256_blendv_ps(r, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

// q8_gelu: (0.5 · x) · (1 + q8_erf(x · 0.70710677)).
inline __m256 gelu8(__m256 x) {
  const __m256 t = _mm256_add_ps(_mm256_set1_ps(1.0f), erf8(_mm256_mul_ps(x, _mm256_set1_ps(0.7071067811865476f))));
  return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), x), t);
}

}  // namespace q8::avx2
