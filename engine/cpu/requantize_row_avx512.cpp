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

// Vector i.. (16 lanes), rounded to int32 within [lo, hi]; ORs its overflow bits (acc + b's signs
// against both operands') into `wrapped`. clamp(rne(g)) is rne(clamp(g)) for integer bounds (rne is
// monotone and fixes integers; a NaN clamps to lo either way), so one rounding, in the conversion.
// With lo = −128 the lower clamp is the int8 packing's saturation: min(hi, g) keeps a NaN g (the
// second operand of vminps is what a NaN returns), which converts to INT32_MIN and saturates to
// −128, as does every g below −128.5.
template <bool kResidual, ResidualSum kMode, bool kFloor>
__m512i one_vector(const Operands& o, int64_t i, __m512i& wrapped) {
  const __m512i a = _mm512_loadu_si512(o.acc + i), b = _mm512_loadu_si512(o.bias + i);
  const __m512i t = _mm512_add_epi32(a, b);
  wrapped = _mm512_or_si512(wrapped, _mm512_ternarylogic_epi32(a, b, t, 0x42));  // (a ^ t) & (b ^ t), per bit
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
  const __m512 z = kFloor ? _mm512_min_ps(o.high, g) : _mm512_min_ps(_mm512_max_ps(g, o.low), o.high);
  return _mm512_cvt_roundps_epi32(z, kNearest);
}

void store_16(int8_t* y, __m512i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(y), _mm512_cvtsepi32_epi8(v)); }

// Four vectors' int32 values to 64 int8 in order: two signed-saturating packs to int16, one to
// int8 (the same saturation as vpmovsdb's, both monotone), then the dwords back in order (each
// pack interleaves its operands by 128-bit lane: dword 4k + s holds vector s's lane k).
void store_64(int8_t* y, __m512i a, __m512i b, __m512i c, __m512i d) {
  const __m512i bytes = _mm512_packs_epi16(_mm512_packs_epi32(a, b), _mm512_packs_epi32(c, d));
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  _mm512_storeu_si512(y, _mm512_permutexvar_epi32(order, bytes));
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

template <bool kResidual, ResidualSum kMode, bool kFloor>
int64_t rows(const Operands& o, int64_t n) {
  __m512i wrapped = _mm512_setzero_si512();
  const int64_t whole = n / 16 * 16;
  int64_t i = 0;
  for (; i + 64 <= whole; i += 64) {
    const __m512i a = one_vector<kResidual, kMode, kFloor>(o, i, wrapped), b = one_vector<kResidual, kMode, kFloor>(o, i + 16, wrapped);
    const __m512i c = one_vector<kResidual, kMode, kFloor>(o, i + 32, wrapped), d = one_vector<kResidual, kMode, kFloor>(o, i + 48, wrapped);
    store_64(o.y + i, a, b, c, d);
  }
  for (; i < whole; i += 16) store_16(o.y + i, one_vector<kResidual, kMode, kFloor>(o, i, wrapped));
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
  __m512i tail_wrapped = _mm512_setzero_si512();
  store_16(y, one_vector<kResidual, kMode, kFloor>(tail, 0, tail_wrapped));
  if (overflows(tail_wrapped)) return whole;
  __builtin_memcpy(o.y + whole, y, size_t(rest));
  return n;
}

template <bool kFloor>
int64_t rows_of_mode(const Operands& o, const RequantizeRow& q, int64_t n) {
  if (!q.residual) return rows<false, ResidualSum::Plain, kFloor>(o, n);
  switch (q.mode) {
    case ResidualSum::Plain: return rows<true, ResidualSum::Plain, kFloor>(o, n);
    case ResidualSum::Rounded: return rows<true, ResidualSum::Rounded, kFloor>(o, n);
    case ResidualSum::RoundedFirst: return rows<true, ResidualSum::RoundedFirst, kFloor>(o, n);
  }
  return 0;
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
  return q.lo == -128 ? rows_of_mode<true>(o, q, n) : rows_of_mode<false>(o, q, n);
}

}  // namespace q8
