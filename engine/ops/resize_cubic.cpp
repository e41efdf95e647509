// Cubic Resize (docs/ops.md, "Resize and Upsample"): each axis in turn, from the last, each output
// the four inputs around its source coordinate x, weighted by Keys' cubic convolution kernel with
// coefficient A (cubic_coeff_a). Inputs past either end repeat the edge, or with exclude_outside
// weigh 0 and the other weights are renormalized. tf_crop_and_resize outside [0, in − 1] gives
// extrapolation_value.
#include <algorithm>
#include <array>
#include <cmath>

#include "engine/cpu/parallel.h"
#include "engine/ops/broadcast.h"
#include "engine/ops/resize_common.h"

namespace q8 {

namespace {

// Keys' kernel at distance d (0 ≤ d < 2).
double cubic_weight(double d, double a) {
  if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2) return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

struct CubicTaps {
  std::vector<int64_t> first;        // per output: the input index of tap 0 (floor(x) − 1), unclamped
  std::vector<std::array<double, 4>> weights;
  std::vector<bool> outside;
};

CubicTaps cubic_taps(int64_t in_len, int64_t out_len, float scale, double roi_start, double roi_end, const ResizeAttrs& a) {
  CubicTaps t;
  for (int64_t o = 0; o < out_len; ++o) {
    const double x = source_coordinate(o, in_len, out_len, scale, roi_start, roi_end, a.coordinate_mode);
    const double f = std::floor(x), r = x - f;
    std::array<double, 4> w = {cubic_weight(1 + r, a.cubic_coeff_a), cubic_weight(r, a.cubic_coeff_a),
                               cubic_weight(1 - r, a.cubic_coeff_a), cubic_weight(2 - r, a.cubic_coeff_a)};
    const int64_t first = int64_t(f) - 1;
    if (a.exclude_outside) {
      double sum = 0;
      for (int k = 0; k < 4; ++k) {
        if (first + k < 0 || first + k >= in_len) w[size_t(k)] = 0;
        sum += w[size_t(k)];
      }
      if (sum != 0)
        for (double& v : w) v /= sum;
    }
    t.first.push_back(first);
    t.weights.push_back(w);
    t.outside.push_back(a.coordinate_mode == "tf_crop_and_resize" && (x < 0 || x > double(in_len - 1)));
  }
  return t;
}

// x resized along axis d alone.
Tensor resize_axis(const Tensor& x, size_t d, int64_t out_len, float scale, double roi_start, double roi_end, const ResizeAttrs& a) {
  const int64_t in_len = x.dim(d);
  const CubicTaps t = cubic_taps(in_len, out_len, scale, roi_start, roi_end, a);
  Dims dims = x.dims();
  dims[d] = out_len;
  Tensor y = Tensor::uninitialized(DType::Float32, dims);
  int64_t inner = 1;
  for (size_t k = d + 1; k < x.rank(); ++k) inner *= x.dim(k);
  const int64_t outer = in_len > 0 && inner > 0 ? x.numel() / (in_len * inner) : numel(dims) / std::max<int64_t>(1, out_len * inner);
  const float* px = x.data<float>();
  float* py = y.data<float>();
  parallel_for(outer * out_len, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, inner)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / out_len, o = r % out_len;
      float* dst = py + r * inner;
      if (t.outside[size_t(o)] || in_len == 0) {
        std::fill_n(dst, inner, t.outside[size_t(o)] ? a.extrapolation_value : 0.0f);
        continue;
      }
      const std::array<double, 4>& w = t.weights[size_t(o)];
      const float* rows[4];
      for (int k = 0; k < 4; ++k)
        rows[k] = px + (b * in_len + std::clamp<int64_t>(t.first[size_t(o)] + k, 0, in_len - 1)) * inner;
      for (int64_t i = 0; i < inner; ++i)
        dst[i] = float(w[0] * rows[0][i] + w[1] * rows[1][i] + w[2] * rows[2][i] + w[3] * rows[3][i]);
    }
  });
  return y;
}

}  // namespace

Tensor interpolate_cubic(const Tensor& x, const Dims& out_dims, const std::vector<float>& scales, const std::vector<float>& roi,
                         const ResizeAttrs& a) {
  check(x.dtype() == DType::Float32, "Resize: cubic mode needs float32 input");
  const size_t rank = x.rank();
  Tensor y = x;
  for (size_t d = rank; d-- > 0;) {
    const double start = roi.size() == 2 * rank ? roi[d] : 0.0, end = roi.size() == 2 * rank ? roi[d + rank] : 1.0;
    const bool same = out_dims[d] == x.dim(d) && scales[d] == 1.0f && a.coordinate_mode != "tf_crop_and_resize";
    if (!same) y = resize_axis(y, d, out_dims[d], scales[d], start, end, a);
  }
  return y;
}

}  // namespace q8
