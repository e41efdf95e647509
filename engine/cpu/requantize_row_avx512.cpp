#include <immintrin.h>

#include "engine/cpu/requantize_row.h"

namespace q8 {

namespace {

constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// The row's operands in registers and restrict-qualified pointers: y is int8, which may alias
// anything, so reading them through the struct made every vector reload them.
struct Operands {
  const int32_t* __restrict acc;
  const int32_t* __restrict bias;
  const float* __restrict m;
  const int8_t* __restrict residual;
  int8_t* __restrict y;
  __m512 low, high, r_scale, y_ratio;
};

// Vector i.. (16 lanes). Returns the overflow bits, acc + b's signs against both operands'.
// clamp(rne(g)) is rne(clamp(g)) for integer bounds (rne is monotone and fixes integers; a NaN
// clamps to lo either way), so one rounding, in the conversion.
template <bool kResidual, ResidualSum kMode>
__m512i one_vector(const Operands& o, int64_t i) {
  const __m512i a = _mm512_loadu_si512(o.acc + i), b = _mm512_loadu_si512(o.bias + i);
  const __m512i t = _mm512_add_epi32(a, b);
  const __m512i wrapped = _mm512_ternarylogic_epi32(a, b, t, 0x42);  // (a ^ t) & (b ^ t), per bit
  const __m512 tf = _mm512_cvtepi32_ps(t), m = _mm512_loadu_ps(o.m + i);
  __m512 g;
  if constexpr (!kResidual) {
    g = _mm512_mul_ps(tf, m);
  } else {
    const __m512 r = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(o.residual + i))));
    if constexpr (kMode == ResidualSum::Plain) {
      g = _mm512_fmadd_ps(tf, m, _mm512_mul_ps(r, o.r_scale));
    } else {
      const __m512 y = _mm512_roundscale_ps(_mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(tf, m), _mm512_set1_ps(-128.0f)), _mm512_set1_ps(127.0f)),
                                            kNearest);
      g = kMode == ResidualSum::Rounded ? _mm512_fmadd_ps(y, o.y_ratio, _mm512_mul_ps(r, o.r_scale))
                                        : _mm512_fmadd_ps(r, o.r_scale, _mm512_mul_ps(y, o.y_ratio));
    }
  }
  const __m512 z = _mm512_min_ps(_mm512_max_ps(g, o.low), o.high);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(o.y + i), _mm512_cvtsepi32_epi8(_mm512_cvt_roundps_epi32(z, kNearest)));
  return wrapped;
}

bool overflows(__m512i wrapped) { return _mm512_cmplt_epi32_mask(wrapped, _mm512_setzero_si512()) != 0; }

// The first vector of 16 whose acc + b leaves int32 (rows() calls it only when one does).
int64_t first_overflow(const Operands& o, int64_t n) {
  for (int64_t i = 0; i + 16 <= n; i += 16) {
    const __m512i a = _mm512_loadu_si512(o.acc + i), b = _mm512_loadu_si512(o.bias + i);
    if (overflows(_mm512_ternarylogic_epi32(a, b, _mm512_add_epi32(a, b), 0x42))) return i;
  }
  return n / 16 * 16;
}

template <bool kResidual, ResidualSum kMode>
int64_t rows(const Operands& o, int64_t n) {
  __m512i wrapped = _mm512_setzero_si512();
  const int64_t whole = n / 16 * 16;
  for (int64_t i = 0; i < whole; i += 16) wrapped = _mm512_or_si512(wrapped, one_vector<kResidual, kMode>(o, i));
  // An overflow is a broken plan (the builder's guard rules it out): found after the stores, the
  // vectors from the first overflowing one on are left to the caller's scalar loop, which reports it.
  if (overflows(wrapped)) return first_overflow(o, n);
  if (whole == n) return n;
  // The tail, padded to a vector with zeros (which cannot overflow) in buffers of its own.
  const int64_t rest = n - whole;
  alignas(64) int32_t acc[16] = {}, bias[16] = {};
  alignas(64) float m[16] = {};
  alignas(16) int8_t residual[16] = {}, y[16];
  // (builtins, not std::copy: a library template instantiated here would carry AVX-512 code
  // that the linker may pick for the whole program)
  __builtin_memcpy(acc, o.acc + whole, size_t(rest) * 4), __builtin_memcpy(bias, o.bias + whole, size_t(rest) * 4);
  __builtin_memcpy(m, o.m + whole, size_t(rest) * 4);
  if (kResidual) __builtin_memcpy(residual, o.residual + whole, size_t(rest));
  const Operands tail{acc, bias, m, residual, y, o.low, o.high, o.r_scale, o.y_ratio};
  if (overflows(one_vector<kResidual, kMode>(tail, 0))) return whole;
  __builtin_memcpy(o.y + whole, y, size_t(rest));
  return n;
}

}  // namespace

int64_t requantize_row_avx512(const RequantizeRow& q, int64_t n) {
  const Operands o{q.acc,
                   q.bias,
                   q.m,
                   q.residual,
                   q.y,
                   _mm512_set1_ps(float(q.lo)),
                   _mm512_set1_ps(float(q.hi)),
                   _mm512_set1_ps(q.r_scale),
                   _mm512_set1_ps(q.y_ratio)};
  if (!q.residual) return rows<false, ResidualSum::Plain>(o, n);
  switch (q.mode) {
    case ResidualSum::Plain: return rows<true, ResidualSum::Plain>(o, n);
    case ResidualSum::Rounded: return rows<true, ResidualSum::Rounded>(o, n);
    case ResidualSum::RoundedFirst: return rows<true, ResidualSum::RoundedFirst>(o, n);
  }
  return 0;
}

}  // namespace q8
