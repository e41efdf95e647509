#include "engine/cpu/transpose.h"

#include <emmintrin.h>

#include <algorithm>
#include <cstring>

#include "engine/cpu/parallel.h"
#include "engine/ir/dtype.h"

namespace q8 {

namespace {

constexpr int64_t kTile = 32;

// One 8 × 8 block of bytes: out[c · os + r] = in[r · is + c], in three rounds of SSE2 unpacks.
void transpose_8x8(const uint8_t* in, int64_t is, uint8_t* out, int64_t os) {
  __m128i a[8];
  for (int r = 0; r < 8; ++r) a[r] = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + r * is));
  const __m128i b0 = _mm_unpacklo_epi8(a[0], a[1]), b1 = _mm_unpacklo_epi8(a[2], a[3]);
  const __m128i b2 = _mm_unpacklo_epi8(a[4], a[5]), b3 = _mm_unpacklo_epi8(a[6], a[7]);
  const __m128i c0 = _mm_unpacklo_epi16(b0, b1), c1 = _mm_unpackhi_epi16(b0, b1);
  const __m128i c2 = _mm_unpacklo_epi16(b2, b3), c3 = _mm_unpackhi_epi16(b2, b3);
  const __m128i d[4] = {_mm_unpacklo_epi32(c0, c2), _mm_unpackhi_epi32(c0, c2), _mm_unpacklo_epi32(c1, c3), _mm_unpackhi_epi32(c1, c3)};
  for (int k = 0; k < 4; ++k) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + (2 * k) * os), d[k]);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + (2 * k + 1) * os), _mm_srli_si128(d[k], 8));
  }
}

// One 4 × 4 block of 4-byte values, in integer registers (no floating-point instruction touches
// the bits): two rounds of 32- and 64-bit unpacks.
void transpose_4x4(const uint32_t* in, int64_t is, uint32_t* out, int64_t os) {
  const __m128i a0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
  const __m128i a1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + is));
  const __m128i a2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 2 * is));
  const __m128i a3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 3 * is));
  const __m128i b0 = _mm_unpacklo_epi32(a0, a1), b1 = _mm_unpackhi_epi32(a0, a1);
  const __m128i b2 = _mm_unpacklo_epi32(a2, a3), b3 = _mm_unpackhi_epi32(a2, a3);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_unpacklo_epi64(b0, b2));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out + os), _mm_unpackhi_epi64(b0, b2));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * os), _mm_unpacklo_epi64(b1, b3));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 3 * os), _mm_unpackhi_epi64(b1, b3));
}

// A matrix with at most kNarrow rows (a 3-channel image to channels-last) or columns (back) has
// no whole block: its few rows are interleaved a column at a time (or its few columns split a row
// at a time), their number known when compiled so that the compiler's vector permutes serve; the
// long side is split between the threads, kNarrowTask values a task.
constexpr int64_t kNarrow = 4;
constexpr int64_t kNarrowTask = 16384;

template <typename T, int R>
void interleave_rows(const T* in, int64_t stride, T* out, int64_t c0, int64_t c1) {
  for (int64_t c = c0; c < c1; ++c)
    for (int r = 0; r < R; ++r) out[c * R + r] = in[r * stride + c];
}

template <typename T, int C>
void split_columns(const T* in, int64_t stride, T* out, int64_t rows, int64_t r0, int64_t r1) {
  for (int64_t r = r0; r < r1; ++r)
    for (int c = 0; c < C; ++c) out[c * rows + r] = in[r * stride + c];
}

// fn.template operator()<N>() for N = n, 1 ≤ n ≤ kNarrow.
template <typename Fn>
void with_narrow(int64_t n, Fn&& fn) {
  switch (n) {
    case 1: fn.template operator()<1>(); break;
    case 2: fn.template operator()<2>(); break;
    case 3: fn.template operator()<3>(); break;
    default: fn.template operator()<4>(); break;
  }
}

template <typename T, typename InOf>
void transpose_narrow(InOf in_of, int64_t stride, T* out_all, int64_t count, int64_t rows, int64_t cols) {
  const bool few_rows = rows <= kNarrow;
  const int64_t narrow = few_rows ? rows : cols, wide = few_rows ? cols : rows;
  const int64_t per_task = std::max<int64_t>(1, kNarrowTask / narrow), chunks = (wide + per_task - 1) / per_task;
  parallel_for(count * chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const T* in = in_of(t / chunks);
      T* out = out_all + t / chunks * rows * cols;
      const int64_t w0 = t % chunks * per_task, w1 = std::min(wide, w0 + per_task);
      with_narrow(narrow, [&]<int N>() {
        if (few_rows) interleave_rows<T, N>(in, stride, out, w0, w1);
        else split_columns<T, N>(in, stride, out, rows, w0, w1);
      });
    }
  });
}

// Whole blocks through the block kernel (a block side of 8 for bytes, 4 for 4-byte values, none
// otherwise), the rest one by one; 32 × 32 tiles of every matrix, at least 16 of them a task (a
// small matrix is not worth a team's barrier). Matrix m is read from in_of(m), rows `stride`
// values apart, and written densely at out_all + m · rows · cols.
template <typename T, typename InOf>
void transpose(InOf in_of, int64_t stride, T* out_all, int64_t count, int64_t rows, int64_t cols) {
  if (rows <= kNarrow || cols <= kNarrow) return transpose_narrow(in_of, stride, out_all, count, rows, cols);
  constexpr int64_t block = sizeof(T) == 1 ? 8 : sizeof(T) == 4 ? 4 : 0;
  const int64_t row_tiles = (rows + kTile - 1) / kTile, col_tiles = (cols + kTile - 1) / kTile, tiles = row_tiles * col_tiles;
  parallel_for(count * tiles, 16, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const T* in = in_of(t / tiles);
      T* out = out_all + t / tiles * rows * cols;
      const int64_t tile = t % tiles;
      const int64_t r0 = tile / col_tiles * kTile, c0 = tile % col_tiles * kTile;
      const int64_t r1 = std::min(rows, r0 + kTile), c1 = std::min(cols, c0 + kTile);
      int64_t rb = r0, cb = c0;  // where the whole blocks end
      if constexpr (block > 0) {
        rb = r0 + (r1 - r0) / block * block, cb = c0 + (c1 - c0) / block * block;
        for (int64_t r = r0; r < rb; r += block)
          for (int64_t c = c0; c < cb; c += block) {
            if constexpr (block == 8) transpose_8x8(in + r * stride + c, stride, out + c * rows + r, rows);
            else transpose_4x4(in + r * stride + c, stride, out + c * rows + r, rows);
          }
      }
      for (int64_t c = c0; c < c1; ++c)
        for (int64_t r = (c < cb ? rb : r0); r < r1; ++r) out[c * rows + r] = in[r * stride + c];
    }
  });
}

}  // namespace

void transpose_matrices(const void* in, void* out, int64_t count, int64_t rows, int64_t cols, size_t bytes) {
  if (rows == 1 || cols == 1) {  // one row or one column: the bytes do not move
    std::memcpy(out, in, size_t(count * rows * cols) * bytes);
    return;
  }
  visit_width(bytes, [&]<typename T>() {
    const T* base = static_cast<const T*>(in);
    transpose([&](int64_t m) { return base + m * rows * cols; }, cols, static_cast<T*>(out), count, rows, cols);
  });
}

void transpose_strided_matrices(const void* in, const std::vector<int64_t>& offsets, int64_t stride, void* out, int64_t rows, int64_t cols,
                                size_t bytes) {
  visit_width(bytes, [&]<typename T>() {
    const T* base = static_cast<const T*>(in);
    transpose([&](int64_t m) { return base + offsets[size_t(m)]; }, stride, static_cast<T*>(out), int64_t(offsets.size()), rows, cols);
  });
}

void channels_last_to_first(const void* y_last, void* y, int64_t positions, int64_t channels, int bytes) {
  transpose_matrices(y_last, y, 1, positions, channels, size_t(bytes));
}

void channels_first_to_last(const int8_t* x, int8_t* x_last, int64_t positions, int64_t channels) {
  transpose_matrices(x, x_last, 1, channels, positions, 1);
}

}  // namespace q8
