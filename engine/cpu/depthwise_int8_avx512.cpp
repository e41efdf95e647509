// The depthwise INT8 row kernel (docs/cpu.md, "Depthwise convolution: q8's own kernel on VNNI"):
// the row's quads of four kernel rows, u = x ⊕ 0x80, one vpdpbusd a quad and kernel column for
// 16 channels, started from −128 · Σ w. Built with AVX-512 BW, VNNI and VBMI; no library
// templates here (their inline copies would carry those instructions to every caller).
#include <immintrin.h>

#include "engine/cpu/depthwise_int8_row.h"

namespace q8 {

namespace {

// permutex2var(a, index[t], b) gives byte 4c + j of 16-channel vector t of a 64-channel chunk from
// a (j even) or b (j odd), channel 16t + c: the pair (u0, u1) in bytes j = 0, 1 of each channel's
// four, and with the same index the pair (u2, u3), which the blend puts at j = 2, 3.
struct PairIndex {
  __m512i of[4];
  PairIndex() {
    alignas(64) unsigned char idx[64];
    for (int t = 0; t < 4; ++t) {
      for (int c = 0; c < 16; ++c)
        for (int j = 0; j < 4; ++j) idx[4 * c + j] = static_cast<unsigned char>((j % 2) * 64 + 16 * t + c);
      of[t] = _mm512_load_si512(idx);
    }
  }
};
constexpr __mmask64 kUpperPairs = 0xCCCCCCCCCCCCCCCCull;  // bytes 4c + 2 and 4c + 3

inline int64_t smaller(int64_t a, int64_t b) { return a < b ? a : b; }

// quads [quad][column][group] of 64 bytes: each channel's four rows of the quad, as u.
void build_quads(const DepthwiseInt8Geometry& geometry, const int8_t* x, int64_t row, uint8_t* quads) {
  static const PairIndex index;
  // The geometry's fields as locals: a vector store may alias anything, and would reload them.
  const DepthwiseInt8Geometry g = geometry;
  const __m512i bias = _mm512_set1_epi8(static_cast<char>(0x80));
  const int64_t c = g.channels, row_bytes = g.in_w * c, chunks = (c + 63) / 64, column_bytes = g.groups * 64;
  for (int64_t q = 0; q < g.quads; ++q) {
    const int8_t* rows[4];
    for (int j = 0; j < 4; ++j) {
      const int64_t r = 4 * q + j, iy = row * g.stride_h - g.pad_top + r * g.dilation_h;
      rows[j] = r < g.kernel_h && iy >= 0 && iy < g.in_h ? x + iy * row_bytes : nullptr;
    }
    uint8_t* out = quads + q * g.columns * column_bytes;
    for (int64_t col = 0; col < g.columns; ++col, out += column_bytes) {
      const int64_t ix = col - g.pad_left;
      if (ix < 0 || ix >= g.in_w) {  // a padded column: x = 0 in every row
        for (int64_t v = 0; v < g.groups; ++v) _mm512_storeu_si512(out + v * 64, bias);
        continue;
      }
      for (int64_t k = 0; k < chunks; ++k) {
        const int64_t c0 = 64 * k, n = smaller(64, c - c0);
        const __mmask64 mask = n == 64 ? ~__mmask64(0) : (__mmask64(1) << n) - 1;
        __m512i u[4];
        for (int j = 0; j < 4; ++j)  // a channel past C reads x = 0; its weight is 0
          u[j] = rows[j] ? _mm512_xor_si512(_mm512_maskz_loadu_epi8(mask, rows[j] + ix * c + c0), bias) : bias;
        const int64_t vectors = smaller(4, g.groups - 4 * k);
        for (int64_t t = 0; t < vectors; ++t) {
          const __m512i lo = _mm512_permutex2var_epi8(u[0], index.of[t], u[1]);
          const __m512i hi = _mm512_permutex2var_epi8(u[2], index.of[t], u[3]);
          _mm512_storeu_si512(out + (4 * k + t) * 64, _mm512_mask_blend_epi8(kUpperPairs, lo, hi));
        }
      }
    }
  }
}

constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// Where the sums of 16 channels go: to acc as int32, or requantized to y as int8 (the
// reference's operations: (float)t, one multiply by M, the clamp, one rounding to even, as
// requantize_row's; lo ≥ −128 and hi ≤ 127, so the int8 packing saturates nothing further).
struct Int32Out {
  int32_t* acc;
  void store(int64_t at, int64_t, __mmask16 mask, __m512i t) const { _mm512_mask_storeu_epi32(acc + at, mask, t); }
};
struct Int8Out {
  int8_t* y;
  const float* m;
  __m512 low, high;
  void store(int64_t at, int64_t channel, __mmask16 mask, __m512i t) const {
    const __m512 g = _mm512_mul_ps(_mm512_cvtepi32_ps(t), _mm512_loadu_ps(m + channel));
    const __m512i q = _mm512_cvt_roundps_epi32(_mm512_min_ps(_mm512_max_ps(g, low), high), kNearest);
    _mm512_mask_cvtsepi32_storeu_epi8(y + at, mask, q);
  }
};

// The row's outputs from the quads, each vector started from start[16 v…] (the compensation, or
// it plus the bias); kQuads and kColumns fix the kernel's quads and width (0: the geometry's), so
// the common kernels keep their weights in registers.
template <int kQuads, int kColumns, typename Out>
void sums(const DepthwiseInt8Geometry& geometry, const int8_t* weights, const int32_t* start_of, const uint8_t* quads, const Out& out) {
  const DepthwiseInt8Geometry g = geometry;  // locals, which the stores cannot alias
  const int64_t nq = kQuads ? kQuads : g.quads, kw = kColumns ? kColumns : g.kernel_w;
  const int64_t column_bytes = g.groups * 64, quad_bytes = g.columns * column_bytes;
  const int64_t tail = g.channels % 16;
  for (int64_t v = 0; v < g.groups; ++v) {
    const __mmask16 store = v == g.groups - 1 && tail ? __mmask16((1u << tail) - 1) : __mmask16(0xFFFF);
    const __m512i start = _mm512_loadu_si512(start_of + 16 * v);
    __m512i w[16];
    for (int64_t i = 0; i < nq * kw; ++i) w[i] = _mm512_loadu_si512(weights + (i * g.groups + v) * 64);
    const uint8_t* base = quads + v * 64;
    for (int64_t ox = 0; ox < g.out_w; ++ox) {
      __m512i a = start;
      const uint8_t* at = base + ox * g.stride_w * column_bytes;
      for (int64_t q = 0; q < nq; ++q)
        for (int64_t k = 0; k < kw; ++k)
          a = _mm512_dpbusd_epi32(a, _mm512_loadu_si512(at + q * quad_bytes + k * g.dilation_w * column_bytes), w[q * kw + k]);
      out.store(ox * g.channels + 16 * v, 16 * v, store, a);
    }
  }
}

template <typename Out>
void row(const DepthwiseInt8Geometry& g, const int8_t* weights, const int32_t* start, const int8_t* x, int64_t r, uint8_t* quads,
         const Out& out) {
  build_quads(g, x, r, quads);
  if (g.quads == 1 && g.kernel_w == 3) return sums<1, 3>(g, weights, start, quads, out);
  if (g.quads == 2 && g.kernel_w == 5) return sums<2, 5>(g, weights, start, quads, out);
  if (g.quads == 2 && g.kernel_w == 7) return sums<2, 7>(g, weights, start, quads, out);
  sums<0, 0>(g, weights, start, quads, out);
}

}  // namespace

void depthwise_int8_row_avx512(const DepthwiseInt8Geometry& g, const int8_t* weights, const int32_t* compensation, const int8_t* x,
                               int64_t r, int32_t* acc, uint8_t* quads) {
  row(g, weights, compensation, x, r, quads, Int32Out{acc});
}

void depthwise_int8_row_requantized_avx512(const DepthwiseInt8Geometry& g, const int8_t* weights, const DepthwiseInt8Requantization& rq,
                                           const int8_t* x, int64_t r, int8_t* y, uint8_t* quads) {
  row(g, weights, rq.start, x, r, quads, Int8Out{y, rq.m, _mm512_set1_ps(float(rq.lo)), _mm512_set1_ps(float(rq.hi))});
}

}  // namespace q8
