// Calibration methods: (histogram, statistics) → amax. One method per file, one table
// (methods/registry.cpp) lists them. The formulas are in docs/calibration.md.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "calib/tensor_observer.h"

namespace q8 {

struct MethodOptions {
  double percentile = 99.99;  // for "percentile"
};

// Quantized levels the histogram methods search over (TensorRT's 128).
inline constexpr int64_t kQuantizedLevels = 128;

class CalibrationMethod {
 public:
  virtual ~CalibrationMethod() = default;
  virtual std::string_view name() const = 0;
  virtual double amax(const AbsHistogram& histogram, const TensorStats& stats, const MethodOptions& options) const = 0;
};

const CalibrationMethod* find_method(std::string_view name);
std::span<const CalibrationMethod* const> calibration_methods();
// "max, percentile, entropy, mse".
std::string method_names();

}  // namespace q8
