// How one tensor is to be quantized, after pytorch-quantization's QuantDescriptor.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace q8 {

struct QuantDescriptor {
  std::string tensor;                  // the ONNX value name
  int num_bits = 8;
  std::optional<int64_t> axis;         // none: per tensor
  bool is_unsigned = false;
  bool narrow_range = false;           // [-127, 127] instead of [-128, 127]
  std::string method;                  // calibration method (activations); "max" for weights
  std::vector<double> amax;            // one value per tensor, or one per channel along axis
};

}  // namespace q8
