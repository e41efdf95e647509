// The window walk shared by MaxPool and AveragePool.
#pragma once

#include <algorithm>
#include <functional>
#include <tuple>
#include <utility>

#include "engine/cpu/parallel.h"
#include "engine/ops/broadcast.h"
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
struct WindowTaps2d {
  const float* plane;
  int64_t width, y_begin, x_begin, dilation_y, dilation_x, ki0, ki1, kj0, kj1;
  float at(int64_t ki, int64_t kj) const { return plane[(y_begin + ki * dilation_y) * width + x_begin + kj * dilation_x]; }
  int64_t count() const { return (ki1 - ki0) * (kj1 - kj0); }
};

// A float32 2-D pool, planes in parallel: output o of each plane is reduce(taps, o).
template <typename Reduce>
Tensor pool_2d(const Tensor& x, const PoolShape& p, Reduce&& reduce) {
  const ResolvedWindow& w = p.window;
  const int64_t h = p.in_spatial[0], wd = p.in_spatial[1], oh = w.output[0], ow = w.output[1];
  Tensor y = Tensor::uninitialized(DType::Float32, p.out_dims);
  const float* px = x.data<float>();
  float* py = y.data<float>();
  parallel_for(x.dim(0) * x.dim(1), std::max<int64_t>(1, 16384 / std::max<int64_t>(1, oh * ow)), [&](int64_t p0, int64_t p1) {
    for (int64_t plane = p0; plane < p1; ++plane) {
      WindowTaps2d t{px + plane * h * wd, wd, 0, 0, w.dilations[0], w.dilations[1], 0, 0, 0, 0};
      float* dst = py + plane * oh * ow;
      for (int64_t oy = 0; oy < oh; ++oy) {
        t.y_begin = oy * w.strides[0] - w.pad_begin[0];
        std::tie(t.ki0, t.ki1) = taps_inside(t.y_begin, w.dilations[0], w.kernel[0], h);
        for (int64_t ox = 0; ox < ow; ++ox) {
          t.x_begin = ox * w.strides[1] - w.pad_begin[1];
          std::tie(t.kj0, t.kj1) = taps_inside(t.x_begin, w.dilations[1], w.kernel[1], wd);
          dst[oy * ow + ox] = reduce(t, oy * ow + ox);
        }
      }
    }
  });
  return y;
}

}  // namespace q8
