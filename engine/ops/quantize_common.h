// Layout of per-tensor and per-axis quantization parameters (QuantizeLinear, DequantizeLinear).
#pragma once

#include <string>

#include "engine/ir/tensor.h"

namespace q8 {

// X viewed as [outer, channels, inner] around the quantization axis; channels = 1 per-tensor.
struct QuantLayout {
  int64_t outer = 1, channels = 1, inner = 1;
};

// Checks that scale (and zero_point, when given) are scalars or 1-D of X's size along axis.
QuantLayout quant_layout(const Tensor& x, const Tensor& scale, const Tensor* zero_point, int64_t axis, const char* op);

}  // namespace q8
