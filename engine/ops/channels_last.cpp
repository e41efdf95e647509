#include "engine/ops/channels_last.h"

#include <algorithm>
#include <cstring>

#include "engine/cpu/int8_primitive.h"
#include "engine/cpu/parallel.h"

namespace q8 {

namespace {

constexpr int64_t kTile = 32;

// dst[j·rows + i] = src[i·cols + j] of a rows × cols matrix, for columns j0 ≤ j < j1 (rows j of
// dst: one contiguous block of it), in square tiles that stay in L1.
template <typename T>
void transpose_columns(const T* src, T* dst, int64_t rows, int64_t cols, int64_t j0, int64_t j1) {
  for (int64_t i0 = 0; i0 < rows; i0 += kTile) {
    const int64_t i1 = std::min(rows, i0 + kTile);
    for (int64_t j = j0; j < j1; ++j)
      for (int64_t i = i0; i < i1; ++i) dst[j * rows + i] = src[i * cols + j];
  }
}

// Each of x's n samples, a rows × cols matrix, transposed into y (dims out).
Tensor transpose_samples(const Tensor& x, Dims out, int64_t rows, int64_t cols) {
  Tensor y = Tensor::uninitialized(x.dtype(), std::move(out));
  const int64_t n = x.rank() ? x.dim(0) : 0, size = rows * cols;
  const size_t bytes = dtype_size(x.dtype());
  if (y.numel() == 0) return y;
  if (rows == 1 || cols == 1) {  // one channel or one position: the bytes do not move
    std::memcpy(y.raw(), x.raw(), x.nbytes());
    return y;
  }
  const auto* px = reinterpret_cast<const uint8_t*>(x.raw());
  auto* py = reinterpret_cast<uint8_t*>(y.raw());
  if (bytes == 1) {  // int8 and uint8 (an INT8 plan's regions): 8 × 8 blocks of bytes at a time, the CPU INT8 backend's copy
    for (int64_t s = 0; s < n; ++s)
      channels_first_to_last(reinterpret_cast<const int8_t*>(px + s * size), reinterpret_cast<int8_t*>(py + s * size), cols, rows);
    return y;
  }
  // Work is split by samples and by blocks of kTile columns, so one sample (batch 1) still uses
  // every thread; a task takes at least 16K elements.
  const int64_t col_blocks = (cols + kTile - 1) / kTile;
  parallel_for(n * col_blocks, std::max<int64_t>(1, 16384 / (rows * kTile)), [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t s = t / col_blocks, j0 = (t % col_blocks) * kTile, j1 = std::min(cols, j0 + kTile);
      const uint8_t* src = px + size_t(s * size) * bytes;
      uint8_t* dst = py + size_t(s * size) * bytes;
      switch (bytes) {
        case 1: transpose_columns(src, dst, rows, cols, j0, j1); break;
        case 2: transpose_columns(reinterpret_cast<const uint16_t*>(src), reinterpret_cast<uint16_t*>(dst), rows, cols, j0, j1); break;
        case 4: transpose_columns(reinterpret_cast<const uint32_t*>(src), reinterpret_cast<uint32_t*>(dst), rows, cols, j0, j1); break;
        default: transpose_columns(reinterpret_cast<const uint64_t*>(src), reinterpret_cast<uint64_t*>(dst), rows, cols, j0, j1); break;
      }
    }
  });
  return y;
}

void check_layout_rank(const Tensor& x, const char* what) {
  check(x.rank() >= 3, std::string(what) + ": a channels-last tensor needs rank >= 3, got " + dims_to_string(x.dims()));
  check(x.dtype() != DType::Undefined, std::string(what) + ": the tensor has no element type");
}

}  // namespace

Dims channels_last_dims(const Dims& d) {
  Dims out{d[0]};
  out.insert(out.end(), d.begin() + 2, d.end());
  out.push_back(d[1]);
  return out;
}

Dims channels_first_dims(const Dims& d) {
  Dims out{d[0], d.back()};
  out.insert(out.end(), d.begin() + 1, d.end() - 1);
  return out;
}

Tensor to_channels_last(const Tensor& x) {
  check_layout_rank(x, "to channels-last");
  const int64_t c = x.dim(1), s = x.dim(0) * c != 0 ? x.numel() / (x.dim(0) * c) : 0;
  return transpose_samples(x, channels_last_dims(x.dims()), c, s);
}

Tensor to_channels_first(const Tensor& x) {
  check_layout_rank(x, "to channels-first");
  const int64_t c = x.dims().back(), s = x.dim(0) * c != 0 ? x.numel() / (x.dim(0) * c) : 0;
  return transpose_samples(x, channels_first_dims(x.dims()), s, c);
}

std::vector<Tensor> run_channels_first(const ChannelsFirstRun& run, const Inputs& in, const std::vector<size_t>& slots) {
  std::vector<Tensor> moved;
  moved.reserve(slots.size());
  Inputs first = in;
  for (size_t slot : slots)
    if (slot < in.size() && in[slot]) {
      moved.push_back(to_channels_first(*in[slot]));
      first[slot] = &moved.back();
    }
  std::vector<Tensor> out = run(first);
  out.at(0) = to_channels_last(out[0]);
  return out;
}

}  // namespace q8
