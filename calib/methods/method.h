// Calibration methods: (histogram, statistics) → amax. One method per file, one table
// (methods/registry.cpp) lists them. The formulas are in docs/calibration.md.
#pragma once

#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "calib/tensor_observer.h"

namespace q8 {

struct MethodOptions {
  double percentile = 99.99;  // for "percentile"
  // Whether bin 0 of the histograms holds the exact zeros (false under --skip-zeros).
  bool histogram_has_zeros = true;
};

// The counts the entropy and mse searches use: the histogram up to its last non-empty bin, with
// the exact zeros taken out of bin 0 (docs/calibration.md, "The zero spike").
std::vector<uint64_t> search_counts(const AbsHistogram& h, const TensorStats& stats, const MethodOptions& options);

// The method q8 calibrates with unless told otherwise (docs/calibration.md, "The default").
inline constexpr const char* kDefaultMethod = "mse";

// entropy leaves out thresholds that saturate more than this fraction of the non-zero values.
inline constexpr double kEntropySaturationLimit = 0.01;

// The least |x| that saturates at amax: round(|x| / (amax / 127)) > 127 from here on
// (docs/calibration.md, "Clipping").
inline double saturation_bound(double amax) { return amax * (1.0 + 1.0 / 254.0); }

// Quantized levels the histogram methods search over (TensorRT's 128).
inline constexpr int64_t kQuantizedLevels = 128;

class CalibrationMethod {
 public:
  virtual ~CalibrationMethod() = default;
  virtual std::string_view name() const = 0;
  virtual double amax(const AbsHistogram& histogram, const TensorStats& stats, const MethodOptions& options) const = 0;
};

// The search entropy and mse share: the least n in [kQuantizedLevels, N] minimizing cost(n)
// (the first minimum), N = the histogram's used bins; nullopt when N < kQuantizedLevels.
template <typename Cost>
std::optional<int64_t> least_cost_bins(int64_t used, Cost cost) {
  if (used < kQuantizedLevels) return std::nullopt;
  double best = std::numeric_limits<double>::infinity();
  int64_t best_n = used;
  for (int64_t n = kQuantizedLevels; n <= used; ++n) {
    const double c = cost(n);
    if (c < best) best = c, best_n = n;
  }
  return best_n;
}

// A method's amax for an observer: its histogram and statistics, bin 0 holding the exact zeros
// unless the observer left them out (--skip-zeros). Every caller asks through here.
double observer_amax(const CalibrationMethod& method, const TensorObserver& observer, MethodOptions options);

const CalibrationMethod* find_method(std::string_view name);
std::span<const CalibrationMethod* const> calibration_methods();
// "max, percentile, entropy, mse".
std::string method_names();

}  // namespace q8
