// q8_exp, q8_sigmoid (kernels/exp.cl), q8_hard_swish (kernels/epilogue_activation.cl), q8_erf and
// q8_gelu (kernels/gelu.cl) on 16 floats with AVX-512, for the files built with -mavx512f that use
// them (engine/cpu/unary_avx512.cpp, engine/cpu/float_epilogue_row_avx512.cpp): the same steps as
// activations_avx2.h, masks for its blends.
#pragma once

#include <immintrin.h>

#include "engine/cpu/erf_coefficients.h"

namespace q8::avx512 {

// kernels/exp.cl step by step: its constants, its fused multiply-adds, and its branches as masks.
inline __m512 exp16(__m512 x) {
  const __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  const __mmask16 over = _mm512_cmp_ps_mask(x, _mm512_set1_ps(88.72283935546875f), _CMP_GT_OQ);
  const __mmask16 under = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-103.97208404541015625f), _CMP_LT_OQ);
  // rint: round half to even, as the default rounding mode.
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269502162933349609375f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fmadd_ps(n, _mm512_set1_ps(-0.693359375f), x);
  r = _mm512_fmadd_ps(n, _mm512_set1_ps(2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  const __m512 y = _mm512_add_ps(_mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r), _mm512_set1_ps(1.0f));
  // k = (int)n (exact: n is an integer), k1 = k / 2 rounded toward zero as C's division.
  const __m512i k = _mm512_cvttps_epi32(n);
  const __m512i k1 = _mm512_srai_epi32(_mm512_add_epi32(k, _mm512_srli_epi32(k, 31)), 1);
  const __m512i bias = _mm512_set1_epi32(127);
  const __m512 pow_k1 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(k1, bias), 23));
  const __m512 pow_rest = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_sub_epi32(k, k1), bias), 23));
  __m512 e = _mm512_mul_ps(_mm512_mul_ps(y, pow_k1), pow_rest);
  e = _mm512_mask_mov_ps(e, under, _mm512_setzero_ps());
  e = _mm512_mask_mov_ps(e, over, _mm512_mul_ps(x, _mm512_set1_ps(2.0e38f)));
  return _mm512_mask_mov_ps(e, nan, x);
}

// q8_sigmoid: 1 / (1 + q8_exp(−x)), a NaN as x + x.
inline __m512 sigmoid16(__m512 v) {
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 minus_v = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(v), _mm512_set1_epi32(int(0x80000000u))));
  const __m512 s = _mm512_div_ps(one, _mm512_add_ps(one, exp16(minus_v)));
  return _mm512_mask_mov_ps(s, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), _mm512_add_ps(v, v));
}

// p = c[0]; p = fma(p, z, c[i]) for i = 1 … N−1: gelu.cl's Horner steps.
template <int N>
inline __m512 horner16(const float (&c)[N], __m512 z) {
  __m512 p = _mm512_set1_ps(c[0]);
  for (int i = 1; i < N; ++i) p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(c[i]));
  return p;
}

// q8_erf as activations_avx2.h's erf8, 16 lanes: every branch computed, masks pick.
inline __m512 erf16(__m512 x) {
  using namespace erf_coefficients;
  const __m512i sign = _mm512_set1_epi32(int(0x80000000u));
  const __m512 one = _mm512_set1_ps(1.0f);
  const auto flip = [&](__m512 v) { return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(v), sign)); };
  const __m512 a = _mm512_castsi512_ps(_mm512_andnot_si512(sign, _mm512_castps_si512(x)));
  const __mmask16 negative = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
  const __m512 small = _mm512_mul_ps(x, horner16(kT, _mm512_mul_ps(x, x)));
  const __m512 e = exp16(flip(_mm512_mul_ps(a, a))), y = _mm512_div_ps(one, a), z = _mm512_mul_ps(y, y);
  const __m512 poly = _mm512_mask_mov_ps(horner16(kR, z), _mm512_cmp_ps_mask(a, _mm512_set1_ps(2.0f), _CMP_LT_OQ), horner16(kP, z));
  const __m512 v = _mm512_sub_ps(one, _mm512_mul_ps(_mm512_mul_ps(e, y), poly));
  __m512 r = _mm512_mask_mov_ps(v, negative, flip(v));
  r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(a, _mm512_set1_ps(4.0f), _CMP_GE_OQ),
                         _mm512_mask_mov_ps(one, negative, _mm512_set1_ps(-1.0f)));
  r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(a, one, _CMP_LT_OQ), small);
  return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x);
}

// q8_gelu: (0.5 · x) · (1 + q8_erf(x · 0.70710677)).
inline __m512 gelu16(__m512 x) {
  const __m512 t = _mm512_add_ps(_mm512_set1_ps(1.0f), erf16(_mm512_mul_ps(x, _mm512_set1_ps(0.7071067811865476f))));
  return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), x), t);
}

// q8_hard_swish: t = v / 6 + 1/2, its clamp to [0, 1], times v; a NaN v as v + v.
inline __m512 hard_swish16(__m512 v) {
  const __m512 t = _mm512_add_ps(_mm512_div_ps(v, _mm512_set1_ps(6.0f)), _mm512_set1_ps(0.5f));
  const __m512 lo = _mm512_min_ps(t, _mm512_set1_ps(1.0f));                   // t < 1 ? t : 1, and 1 for a NaN t
  const __m512 y = _mm512_mul_ps(v, _mm512_max_ps(lo, _mm512_setzero_ps()));  // 0 < lo ? lo : 0 (lo is no NaN)
  return _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), _mm512_add_ps(v, v));
}

}  // namespace q8::avx512
