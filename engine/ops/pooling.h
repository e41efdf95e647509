// The window walk shared by MaxPool and AveragePool.
#pragma once

#include <algorithm>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/cpu/parallel.h"
#include "engine/ops/broadcast.h"
#include "engine/ops/channels_last.h"
#include "engine/ops/conv_common.h"
#include "engine/ops/op.h"

namespace q8 {

struct PoolShape {
  ResolvedWindow window;
  Dims in_spatial;
  Dims out_dims;  // [N, C, out…]
};

// Resolves a pooling window over X ([N, C, spatial…]); kernel_shape is required.
PoolShape resolve_pool(const Window& w, const Dims& x, const std::string& name);

// 2×2 windows at stride 2 inside the plane (the downsampling of most CNNs), which MaxPool walks
// without the general walk's bounds arithmetic, channels-first or channels-last.
inline bool halving_window(const PoolShape& p) {
  const ResolvedWindow& w = p.window;
  return w.kernel == std::vector<int64_t>{2, 2} && w.strides == std::vector<int64_t>{2, 2} && w.dilations == std::vector<int64_t>{1, 1} &&
         w.pad_begin == std::vector<int64_t>{0, 0} && 2 * w.output[0] <= p.in_spatial[0] && 2 * w.output[1] <= p.in_spatial[1];
}

// Number of window positions of output o that lie inside the input extended by its pads
// (what count_include_pad divides by).
std::vector<int64_t> padded_window_counts(const ResolvedWindow& w, const Dims& in_spatial);

// Kernel taps k in [k0, k1) whose position begin + k·dilation lies inside [0, n), k0 <= k1.
inline std::pair<int64_t, int64_t> taps_inside(int64_t begin, int64_t dilation, int64_t kernel, int64_t n) {
  const int64_t k0 = std::min(kernel, begin >= 0 ? 0 : (-begin + dilation - 1) / dilation);
  const int64_t k1 = begin >= n ? 0 : std::min(kernel, (n - 1 - begin) / dilation + 1);
  return {k0, std::max(k1, k0)};
}

// The taps of one 2-D window that lie inside its input plane: rows [ki0, ki1), columns [kj0, kj1).
template <typename T = float>
struct WindowTaps2d {
  const T* plane;
  int64_t width, y_begin, x_begin, dilation_y, dilation_x, ki0, ki1, kj0, kj1;
  T at(int64_t ki, int64_t kj) const { return plane[(y_begin + ki * dilation_y) * width + x_begin + kj * dilation_x]; }
  int64_t count() const { return (ki1 - ki0) * (kj1 - kj0); }
};

// The output columns [a, b) of a 2-D window whose taps lie wholly inside the plane's width
// (x_begin = ox·s − pad ≥ 0 and x_begin + (k − 1)·d < width).
inline std::pair<int64_t, int64_t> interior_columns(const ResolvedWindow& w, int64_t width) {
  const int64_t ow = w.output[1], s = w.strides[1], left = w.pad_begin[1];
  const int64_t a = std::min(ow, (left + s - 1) / s), last = width - 1 - (w.kernel[1] - 1) * w.dilations[1] + left;
  return {a, last < 0 ? a : std::max(a, std::min(ow, last / s + 1))};
}

// No interior run: every output by reduce.
struct NoInteriorRun {};

// A 2-D pool of T values (float32 by default), planes in parallel: output o of each plane is
// reduce(taps, o). With an interior run, each output row's interior columns [a, b)
// (interior_columns) are instead interior(taps, row, o, a, b), taps holding the row's ki0, ki1 and
// y_begin, row pointing at the row's first output and o its index; it must give what reduce gives
// for each of them.
template <typename T = float, typename Reduce, typename Interior = NoInteriorRun>
Tensor pool_2d(const Tensor& x, const PoolShape& p, Reduce&& reduce, Interior&& interior = {}) {
  constexpr bool kRun = !std::is_same_v<std::decay_t<Interior>, NoInteriorRun>;
  const ResolvedWindow& w = p.window;
  const int64_t h = p.in_spatial[0], wd = p.in_spatial[1], oh = w.output[0], ow = w.output[1];
  const auto [a, b] = kRun ? interior_columns(w, wd) : std::pair<int64_t, int64_t>{ow, ow};
  Tensor y = Tensor::uninitialized(x.dtype(), p.out_dims);
  const T* px = x.data<T>();
  T* py = y.data<T>();
  parallel_for(x.dim(0) * x.dim(1), std::max<int64_t>(1, 16384 / std::max<int64_t>(1, oh * ow)), [&](int64_t p0, int64_t p1) {
    for (int64_t plane = p0; plane < p1; ++plane) {
      WindowTaps2d<T> t{px + plane * h * wd, wd, 0, 0, w.dilations[0], w.dilations[1], 0, 0, 0, 0};
      T* dst = py + plane * oh * ow;
      for (int64_t oy = 0; oy < oh; ++oy) {
        t.y_begin = oy * w.strides[0] - w.pad_begin[0];
        std::tie(t.ki0, t.ki1) = taps_inside(t.y_begin, w.dilations[0], w.kernel[0], h);
        const auto columns = [&](int64_t from, int64_t to) {
          for (int64_t ox = from; ox < to; ++ox) {
            t.x_begin = ox * w.strides[1] - w.pad_begin[1];
            std::tie(t.kj0, t.kj1) = taps_inside(t.x_begin, w.dilations[1], w.kernel[1], wd);
            dst[oy * ow + ox] = reduce(t, oy * ow + ox);
          }
        };
        columns(0, a);
        if constexpr (kRun)
          if (b > a) interior(t, dst + oy * ow, oy * ow, a, b);
        columns(std::max(a, b), ow);
      }
    }
  });
  return y;
}

// out[ch] = combine(out[ch], tap[ch]) for ch < c: a function of its own, restrict-qualified and c
// by value, so the loop vectorizes (inside the row lambda an int8 store may alias the captured
// c, and the loop ran a byte at a time: ResNet-50's int8 stem MaxPool took 6 % of its INT8 run).
template <typename T, typename Combine>
void combine_channels(T* __restrict out, const T* __restrict tap, int64_t c, Combine& combine) {
  for (int64_t ch = 0; ch < c; ++ch) out[ch] = combine(out[ch], tap[ch]);
}

// The same 2-D pool on channels-last X ([N, H, W, C]; p resolved on its channels-first dims):
// every channel of an output position at once, out[c] = combine(out[c], tap[c]) over the same
// taps in the same (row-major) order from `init`, then finish(out, C, taps, o) in place. Each
// output element is the one pool_2d computes. T is X's element type (float; int8 or uint8 for a
// plan's MaxPool); y, of T and channels_last_dims(p.out_dims), is given (pool_2d_channels_last
// below allocates it).
template <typename T, typename Combine, typename Finish>
void pool_2d_channels_last_into(const Tensor& x, const PoolShape& p, T init, Combine&& combine, Finish&& finish, Tensor& y) {
  const ResolvedWindow& w = p.window;
  const int64_t h = p.in_spatial[0], wd = p.in_spatial[1], oh = w.output[0], ow = w.output[1], c = x.dims().back();
  const T* px = x.data<T>();
  T* py = y.data<T>();
  std::vector<std::pair<int64_t, int64_t>> columns(static_cast<size_t>(ow));  // each column's taps, found once
  for (int64_t ox = 0; ox < ow; ++ox) columns[size_t(ox)] = taps_inside(ox * w.strides[1] - w.pad_begin[1], w.dilations[1], w.kernel[1], wd);
  parallel_for(x.dim(0) * oh, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, ow * c)), [&](int64_t r0, int64_t r1) {
    for (int64_t row = r0; row < r1; ++row) {
      const int64_t oy = row % oh, y_begin = oy * w.strides[0] - w.pad_begin[0];
      const T* plane = px + (row / oh) * h * wd * c;
      const auto [ki0, ki1] = taps_inside(y_begin, w.dilations[0], w.kernel[0], h);
      // Input rows one after another (a stream the prefetcher follows); each output element
      // still takes its taps row by row, left to right.
      T* out_row = py + row * ow * c;
      std::fill(out_row, out_row + ow * c, init);
      for (int64_t ki = ki0; ki < ki1; ++ki) {
        const T* in_row = plane + (y_begin + ki * w.dilations[0]) * wd * c;
        for (int64_t ox = 0; ox < ow; ++ox) {
          const int64_t x_begin = ox * w.strides[1] - w.pad_begin[1];
          T* out = out_row + ox * c;
          for (int64_t kj = columns[size_t(ox)].first; kj < columns[size_t(ox)].second; ++kj)
            combine_channels(out, in_row + (x_begin + kj * w.dilations[1]) * c, c, combine);
        }
      }
      for (int64_t ox = 0; ox < ow; ++ox)
        finish(out_row + ox * c, c, (ki1 - ki0) * (columns[size_t(ox)].second - columns[size_t(ox)].first), oy * ow + ox);
    }
  });
}

template <typename T, typename Combine, typename Finish>
Tensor pool_2d_channels_last(const Tensor& x, const PoolShape& p, T init, Combine&& combine, Finish&& finish) {
  Tensor y = Tensor::uninitialized(dtype_of<T>(), channels_last_dims(p.out_dims));
  pool_2d_channels_last_into<T>(x, p, init, std::forward<Combine>(combine), std::forward<Finish>(finish), y);
  return y;
}

}  // namespace q8
