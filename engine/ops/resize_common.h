// Interpolation shared by Resize and Upsample: nearest, (multi)linear and cubic, with ONNX's
// coordinate transformation modes (docs/ops.md).
#pragma once

#include <string>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/ir/tensor.h"
#include "engine/ops/op.h"

namespace q8 {

struct ResizeAttrs {
  std::string mode = "nearest";                         // nearest | linear | cubic
  std::string coordinate_mode = "half_pixel";           // see docs/ops.md
  std::string nearest_mode = "round_prefer_floor";      // round_prefer_floor | round_prefer_ceil | floor | ceil
  float extrapolation_value = 0.0f;                     // tf_crop_and_resize only
  float cubic_coeff_a = -0.75f;                         // cubic only
  bool exclude_outside = false;                         // cubic: taps outside the input weigh 0, the rest renormalized
  std::vector<int64_t> axes;                            // opset 18: the axes scales, sizes and roi name (all when empty)
  std::string keep_aspect_ratio_policy = "stretch";     // opset 18, with sizes: stretch | not_larger | not_smaller
};

// Validates the attribute values; Error naming the node and the value otherwise.
void check_resize_attrs(const ResizeAttrs& a, const std::string& name);

// A Resize node's attributes (opset 10 behaves as Upsample: asymmetric, nearest rounds down),
// checked.
ResizeAttrs resize_attrs(const Node& node, int64_t opset);

// What a Resize node asks of an input of dims x: the output dims, the scale of each axis's
// coordinate transform, and roi = [start…, end…] (or empty). in holds the node's inputs (X, roi,
// scales, sizes; opset 10: X, scales); Error naming the node when they disagree.
struct ResizeTarget {
  Dims out;
  std::vector<float> scales, roi;
};
ResizeTarget resize_target(const Dims& x, const Inputs& in, int64_t opset, const ResizeAttrs& a, const std::string& name);

// x_original of output index o on an axis of in_len inputs and out_len outputs resized by scale
// (docs/ops.md, "Resize and Upsample"); roi_start and roi_end for tf_crop_and_resize.
double source_coordinate(int64_t o, int64_t in_len, int64_t out_len, float scale, double roi_start, double roi_end,
                         const std::string& mode);

// Per output index of one axis: up to two source indices with weights; outside = extrapolate.
struct AxisTaps {
  std::vector<int64_t> i0, i1;
  std::vector<float> w0, w1;
  std::vector<bool> outside;
  bool identity = true;
};

// The taps of every axis of x for a resize to out_dims (what interpolate reads).
std::vector<AxisTaps> resize_taps(const Dims& x, const Dims& out_dims, const std::vector<float>& scales,
                                  const std::vector<float>& roi, const ResizeAttrs& a);

// Resizes float32 (or any type, for nearest; float32 only for linear and cubic) x to out_dims. scales[d] is the scale used by the
// coordinate transform of axis d; roi = [start…, end…] for tf_crop_and_resize (or empty).
Tensor interpolate(const Tensor& x, const Dims& out_dims, const std::vector<float>& scales,
                   const std::vector<float>& roi, const ResizeAttrs& a);

// Cubic interpolation (resize_cubic.cpp): float32 x to out_dims, axis by axis.
Tensor interpolate_cubic(const Tensor& x, const Dims& out_dims, const std::vector<float>& scales, const std::vector<float>& roi,
                         const ResizeAttrs& a);

}  // namespace q8
