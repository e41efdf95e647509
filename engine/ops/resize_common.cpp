#include <algorithm>
#include <limits>
#include "engine/ops/resize_common.h"

#include "engine/cpu/parallel.h"
#include "engine/cpu/resize_row.h"
#include "engine/ops/broadcast.h"

#include <cmath>
#include <cstring>

namespace q8 {

void check_resize_attrs(const ResizeAttrs& a, const std::string& name) {
  check(a.mode == "nearest" || a.mode == "linear" || a.mode == "cubic",
        name + ": mode '" + a.mode + "' is not supported (nearest, linear and cubic are)");
  const std::string& c = a.coordinate_mode;
  check(c == "half_pixel" || c == "half_pixel_symmetric" || c == "pytorch_half_pixel" || c == "align_corners" ||
            c == "asymmetric" || c == "tf_half_pixel_for_nn" || c == "tf_crop_and_resize",
        name + ": coordinate_transformation_mode '" + c + "' is not supported");
  const std::string& n = a.nearest_mode;
  check(n == "round_prefer_floor" || n == "round_prefer_ceil" || n == "floor" || n == "ceil",
        name + ": nearest_mode '" + n + "' is not supported");
  const std::string& k = a.keep_aspect_ratio_policy;
  check(k == "stretch" || k == "not_larger" || k == "not_smaller", name + ": keep_aspect_ratio_policy '" + k + "' is not supported");
}

namespace {

// x_original for output coordinate x on one axis (docs/ops.md). As in ONNX's reference, the
// resized length out_len is in_len · scale before the output size is floored (the integer size
// when sizes were given); out_count is the output's integer length, which pytorch_half_pixel
// tests. The scale-based forms run in float, as ONNX Runtime computes them: with sizes given,
// (x + 0.5) / scale lands on the float value ONNX Runtime rounds, ties included.
double original_coordinate(double x, float scale, int64_t in_len, double out_len, int64_t out_count, double roi_start,
                           double roi_end, const std::string& mode) {
  const float xf = float(x);
  if (mode == "half_pixel") return (xf + 0.5f) / scale - 0.5f;
  if (mode == "half_pixel_symmetric") {  // opset 19: the half-pixel grid centred on the input
    const double adjustment = double(out_count) / out_len, center = double(in_len) / 2;
    return center * (1 - adjustment) + (x + 0.5) / double(scale) - 0.5;
  }
  if (mode == "pytorch_half_pixel") return out_count > 1 ? (xf + 0.5f) / scale - 0.5f : 0.0f;
  if (mode == "align_corners") return out_len == 1 ? 0.0 : x * double(in_len - 1) / (out_len - 1);
  if (mode == "asymmetric") return xf / scale;
  if (mode == "tf_half_pixel_for_nn") return (xf + 0.5f) / scale;
  // tf_crop_and_resize
  return out_len > 1 ? roi_start * double(in_len - 1) + x * (roi_end - roi_start) * double(in_len - 1) / (out_len - 1)
                     : 0.5 * (roi_start + roi_end) * double(in_len - 1);
}

int64_t nearest_index(double x, const std::string& mode) {
  if (mode == "floor") return int64_t(std::floor(x));
  if (mode == "ceil") return int64_t(std::ceil(x));
  const double f = std::floor(x);
  if (x - f == 0.5) return int64_t(mode == "round_prefer_ceil" ? f + 1 : f);
  return int64_t(std::round(x));
}

}  // namespace

double source_coordinate(int64_t o, int64_t in_len, int64_t out_len, float scale, double roi_start, double roi_end,
                         const std::string& mode) {
  double resized = double(in_len) * double(scale);
  if (std::fabs(resized - double(out_len)) < 1e-4 * double(out_len)) resized = double(out_len);  // sizes given
  return original_coordinate(double(o), scale, in_len, resized, out_len, roi_start, roi_end, mode);
}

namespace {

AxisTaps axis_taps(int64_t in_len, int64_t out_len, float scale, double roi_start, double roi_end, const ResizeAttrs& a) {
  AxisTaps t;
  for (int64_t o = 0; o < out_len; ++o) {
    const double x = source_coordinate(o, in_len, out_len, scale, roi_start, roi_end, a.coordinate_mode);
    const bool outside = a.coordinate_mode == "tf_crop_and_resize" && (x < 0 || x > double(in_len - 1));
    int64_t i0, i1;
    float w0, w1;
    if (a.mode == "nearest") {
      i0 = i1 = std::clamp<int64_t>(nearest_index(x, a.nearest_mode), 0, in_len - 1);
      w0 = 1, w1 = 0;
    } else {  // linear (cubic reads its own taps: resize_cubic.cpp)
      const double f = std::floor(x);
      const double r = x - f;
      i0 = std::clamp<int64_t>(int64_t(f), 0, in_len - 1);
      i1 = std::clamp<int64_t>(int64_t(f) + 1, 0, in_len - 1);
      w0 = float(1 - r), w1 = float(r);
    }
    t.i0.push_back(i0), t.i1.push_back(i1), t.w0.push_back(w0), t.w1.push_back(w1), t.outside.push_back(outside);
    t.identity = t.identity && in_len == out_len && i0 == o && (w1 == 0 || i1 == i0) && !outside;
  }
  return t;
}

// Nearest over the last two axes for any element type: each output row copies the elements its
// taps pick from one input row (T is a same-sized stand-in for the element type: only bytes move).
template <typename T>
void nearest_last_two(const Tensor& x, Tensor& y, const AxisTaps& th, const AxisTaps& tw) {
  const size_t rank = x.rank();
  const int64_t h = x.dim(rank - 2), w = x.dim(rank - 1), oh = y.dim(rank - 2), ow = y.dim(rank - 1);
  const int64_t planes = h > 0 && w > 0 ? x.numel() / (h * w) : 0;
  const T* px = reinterpret_cast<const T*>(x.raw());
  T* py = reinterpret_cast<T*>(y.raw());
  parallel_for(planes * oh, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(ow, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* row = px + (r / oh) * h * w + th.i0[size_t(r % oh)] * w;
      T* dst = py + r * ow;
      for (int64_t ox = 0; ox < ow; ++ox) dst[ox] = row[tw.i0[size_t(ox)]];
    }
  });
}

// The common case, walked row by row in parallel: only the last two axes resized, no
// extrapolation; float32 for linear, any element type for nearest. Each output element sums the
// same corners with the same weights in the same order as the general loop below, so both give
// the same bits.
Tensor interpolate_last_two(const Tensor& x, const Dims& out_dims, const std::vector<AxisTaps>& taps, bool linear) {
  const size_t rank = x.rank();
  const AxisTaps &th = taps[rank - 2], &tw = taps[rank - 1];
  Tensor y = Tensor::uninitialized(x.dtype(), out_dims);
  if (!linear) {
    visit_width(dtype_size(x.dtype()), [&]<typename T>() { nearest_last_two<T>(x, y, th, tw); });
    return y;
  }
  const int64_t h = x.dim(rank - 2), w = x.dim(rank - 1), oh = out_dims[rank - 2], ow = out_dims[rank - 1];
  const int64_t planes = h > 0 && w > 0 ? x.numel() / (h * w) : 0;
  const float* px = x.data<float>();
  float* py = y.data<float>();
  const bool h_active = !th.identity, w_active = !tw.identity;
  // Both axes resized: the rows in vectors (engine/cpu/resize_row.h, the same bits), which read
  // the column taps as int32.
  std::vector<int32_t> c0(h_active && w_active ? size_t(ow) : 0), c1(c0.size());
  for (size_t i = 0; i < c0.size(); ++i) c0[i] = int32_t(tw.i0[i]), c1[i] = int32_t(tw.i1[i]);
  parallel_for(planes * oh, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(ow, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t plane = r / oh, oy = r % oh;
      const float* row0 = px + plane * h * w + th.i0[size_t(oy)] * w;
      const float* row1 = px + plane * h * w + th.i1[size_t(oy)] * w;
      float* dst = py + r * ow;
      const float wh0 = th.w0[size_t(oy)], wh1 = th.w1[size_t(oy)];
      if (!c0.empty() && linear_resize_row({row0, row1, wh0, wh1, c0.data(), c1.data(), tw.w0.data(), tw.w1.data(), dst}, ow) == ow) continue;
      for (int64_t ox = 0; ox < ow; ++ox) {
        const size_t i = size_t(ox);
        const int64_t c0 = tw.i0[i], c1 = tw.i1[i];
        float sum = 0, wt;
        if (h_active && w_active) {  // corners (h0,w0), (h1,w0), (h0,w1), (h1,w1)
          if ((wt = 1 * wh0 * tw.w0[i]) != 0) sum += wt * row0[c0];
          if ((wt = 1 * wh1 * tw.w0[i]) != 0) sum += wt * row1[c0];
          if ((wt = 1 * wh0 * tw.w1[i]) != 0) sum += wt * row0[c1];
          if ((wt = 1 * wh1 * tw.w1[i]) != 0) sum += wt * row1[c1];
        } else if (h_active) {
          if ((wt = 1 * wh0) != 0) sum += wt * row0[c0];
          if ((wt = 1 * wh1) != 0) sum += wt * row1[c0];
        } else if (w_active) {
          if ((wt = 1 * tw.w0[i]) != 0) sum += wt * row0[c0];
          if ((wt = 1 * tw.w1[i]) != 0) sum += wt * row0[c1];
        } else {
          if ((wt = 1.0f) != 0) sum += wt * row0[c0];
        }
        dst[ox] = sum;
      }
    }
  });
  return y;
}

}  // namespace

ResizeAttrs resize_attrs(const Node& node, int64_t opset) {
  ResizeAttrs a;
  a.mode = node.attr_string("mode", "nearest");
  if (opset >= 11) {
    a.coordinate_mode = node.attr_string("coordinate_transformation_mode", "half_pixel");
    a.nearest_mode = node.attr_string("nearest_mode", "round_prefer_floor");
    a.extrapolation_value = node.attr_float("extrapolation_value", 0.0f);
    a.cubic_coeff_a = node.attr_float("cubic_coeff_a", -0.75f);
    a.exclude_outside = node.attr_int("exclude_outside", 0) != 0;
    a.axes = node.attr_ints("axes");
    a.keep_aspect_ratio_policy = node.attr_string("keep_aspect_ratio_policy", "stretch");
    check(node.attr_int("antialias", 0) == 0,
          node.describe() + ": antialias = 1 is not supported (resizing without the antialiasing filter is)");
  } else {
    a.coordinate_mode = "asymmetric";
    a.nearest_mode = "floor";
  }
  check_resize_attrs(a, node.describe());
  return a;
}

ResizeTarget resize_target(const Dims& x, const Inputs& in, int64_t opset, const ResizeAttrs& a, const std::string& name) {
  const size_t rank = x.size();
  ResizeTarget t;
  std::vector<float> scales, roi;
  Dims sizes;
  if (opset < 11) {
    scales = required_input(in, 1, "Resize", "scales").to_floats();
  } else {
    if (const Tensor* r = optional_input(in, 1); r && r->numel() > 0) roi = r->to_floats();
    if (const Tensor* s = optional_input(in, 2); s && s->numel() > 0) scales = s->to_floats();
    if (const Tensor* s = optional_input(in, 3); s && s->numel() > 0) sizes = s->to_int64s();
  }
  check(scales.empty() != sizes.empty(), name + ": exactly one of scales and sizes must be given");
  // The axes scales, sizes and roi speak of (opset 18's `axes`; all by default).
  std::vector<size_t> axes;
  for (int64_t axis : a.axes) {
    const size_t d = size_t(normalize_axis(axis, int64_t(rank), "Resize"));
    check(std::find(axes.begin(), axes.end(), d) == axes.end(), name + ": axes names axis " + std::to_string(d) + " twice");
    axes.push_back(d);
  }
  if (axes.empty())
    for (size_t d = 0; d < rank; ++d) axes.push_back(d);
  const size_t n = axes.size();
  const char* given = sizes.empty() ? "scales" : "sizes";
  const size_t count = sizes.empty() ? scales.size() : sizes.size();
  check(count == n, name + ": " + given + " has " + std::to_string(count) + " values for " + std::to_string(n) +
                        (a.axes.empty() ? " axes (the rank)" : " axes"));
  check(roi.empty() || roi.size() == 2 * n, name + ": roi has " + std::to_string(roi.size()) + " values for " + std::to_string(n) + " axes");
  t.out = x;
  t.scales.assign(rank, 1.0f);
  if (!roi.empty()) {
    t.roi.assign(2 * rank, 0.0f);
    for (size_t d = 0; d < rank; ++d) t.roi[rank + d] = 1.0f;
  }
  for (size_t k = 0; k < n; ++k)
    if (!roi.empty()) t.roi[axes[k]] = roi[k], t.roi[rank + axes[k]] = roi[n + k];
  if (!sizes.empty() && a.keep_aspect_ratio_policy != "stretch") {
    // One scale for every named axis: the smallest (not_larger) or largest (not_smaller) of
    // sizes / input, and sizes round(scale · input), halves up.
    double scale = a.keep_aspect_ratio_policy == "not_larger" ? std::numeric_limits<double>::infinity() : 0.0;
    for (size_t k = 0; k < n; ++k) {
      const double r = double(sizes[k]) / double(x[axes[k]]);
      scale = a.keep_aspect_ratio_policy == "not_larger" ? std::min(scale, r) : std::max(scale, r);
    }
    for (size_t k = 0; k < n; ++k) {
      t.out[axes[k]] = int64_t(scale * double(x[axes[k]]) + 0.5);
      t.scales[axes[k]] = float(scale);
    }
    return t;
  }
  for (size_t k = 0; k < n; ++k) {
    const size_t d = axes[k];
    if (!sizes.empty()) {
      check(sizes[k] >= 0, name + ": size " + std::to_string(sizes[k]) + " is negative");
      t.out[d] = sizes[k], t.scales[d] = float(double(sizes[k]) / double(x[d]));
    } else {
      check(scales[k] > 0, name + ": scale " + std::to_string(scales[k]) + " is not positive");
      t.scales[d] = scales[k];
      t.out[d] = int64_t(std::floor(double(x[d]) * double(scales[k])));
    }
  }
  return t;
}

std::vector<AxisTaps> resize_taps(const Dims& x, const Dims& out_dims, const std::vector<float>& scales,
                                  const std::vector<float>& roi, const ResizeAttrs& a) {
  const size_t rank = x.size();
  std::vector<AxisTaps> taps;
  for (size_t d = 0; d < rank; ++d) {
    const double start = roi.size() == 2 * rank ? roi[d] : 0.0, end = roi.size() == 2 * rank ? roi[d + rank] : 1.0;
    taps.push_back(axis_taps(x[d], out_dims[d], scales[d], start, end, a));
  }
  return taps;
}

Tensor interpolate(const Tensor& x, const Dims& out_dims, const std::vector<float>& scales, const std::vector<float>& roi,
                   const ResizeAttrs& a) {
  if (a.mode == "cubic") return interpolate_cubic(x, out_dims, scales, roi, a);
  const size_t rank = x.rank();
  const std::vector<AxisTaps> taps = resize_taps(x.dims(), out_dims, scales, roi, a);
  const bool linear = a.mode == "linear";
  bool last_two = rank >= 2 && (x.dtype() == DType::Float32 || !linear) && a.coordinate_mode != "tf_crop_and_resize";
  for (size_t d = 0; d + 2 < rank; ++d) last_two = last_two && taps[d].identity;
  if (last_two) return interpolate_last_two(x, out_dims, taps, linear);
  Tensor y(x.dtype(), out_dims);
  std::vector<int64_t> strides(rank, 1);
  for (size_t d = rank; d-- > 1;) strides[d - 1] = strides[d] * x.dim(d);
  std::vector<size_t> active;  // axes that interpolate
  for (size_t d = 0; d < rank; ++d)
    if (!taps[d].identity) active.push_back(d);
  check(!linear || x.dtype() == DType::Float32, "Resize: linear mode needs float32 input");
  std::vector<int64_t> idx(rank, 0);
  const size_t elem = dtype_size(x.dtype());
  for (int64_t o = 0; o < y.numel(); ++o) {
    bool outside = false;
    int64_t base = 0;
    for (size_t d = 0; d < rank; ++d) {
      outside = outside || taps[d].outside[size_t(idx[d])];
      base += taps[d].i0[size_t(idx[d])] * strides[d];
    }
    if (outside) {
      if (x.dtype() == DType::Float32) y.data<float>()[o] = a.extrapolation_value;
    } else if (!linear) {
      copy_bytes(y.raw() + size_t(o) * elem, x.raw() + size_t(base) * elem, elem);
    } else {
      // Σ over the 2^|active| corners of Π weights · x[corner].
      float sum = 0;
      const float* px = x.data<float>();
      for (size_t corner = 0; corner < (size_t(1) << active.size()); ++corner) {
        float w = 1;
        int64_t off = base;
        for (size_t k = 0; k < active.size(); ++k) {
          const size_t d = active[k];
          const AxisTaps& t = taps[d];
          const size_t i = size_t(idx[d]);
          if (corner >> k & 1) w *= t.w1[i], off += (t.i1[i] - t.i0[i]) * strides[d];
          else w *= t.w0[i];
        }
        if (w != 0) sum += w * px[off];
      }
      y.data<float>()[o] = sum;
    }
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < out_dims[d]) break;
      idx[d] = 0;
    }
  }
  return y;
}

}  // namespace q8
