// Interpolation shared by Resize and Upsample: nearest and (multi)linear, with ONNX's
// coordinate transformation modes (docs/ops.md).
#pragma once

#include <string>
#include <vector>

#include "engine/ir/tensor.h"

namespace q8 {

struct ResizeAttrs {
  std::string mode = "nearest";                         // nearest | linear
  std::string coordinate_mode = "half_pixel";           // see docs/ops.md
  std::string nearest_mode = "round_prefer_floor";      // round_prefer_floor | round_prefer_ceil | floor | ceil
  float extrapolation_value = 0.0f;                     // tf_crop_and_resize only
};

// Validates the attribute values; Error naming the node and the value otherwise.
void check_resize_attrs(const ResizeAttrs& a, const std::string& name);

// Resizes float32 (or any type, for nearest) x to out_dims. scales[d] is the scale used by the
// coordinate transform of axis d; roi = [start…, end…] for tf_crop_and_resize (or empty).
Tensor interpolate(const Tensor& x, const Dims& out_dims, const std::vector<float>& scales,
                   const std::vector<float>& roi, const ResizeAttrs& a);

}  // namespace q8
