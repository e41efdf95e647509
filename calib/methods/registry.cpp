// The one list of calibration methods.
#include <algorithm>

#include "calib/methods/method.h"

namespace q8 {

const CalibrationMethod& max_method();
const CalibrationMethod& percentile_method();
const CalibrationMethod& entropy_method();
const CalibrationMethod& mse_method();

std::span<const CalibrationMethod* const> calibration_methods() {
  static const CalibrationMethod* const methods[] = {&max_method(), &percentile_method(), &entropy_method(), &mse_method()};
  return methods;
}

double observer_amax(const CalibrationMethod& method, const TensorObserver& observer, MethodOptions options) {
  options.histogram_has_zeros = !observer.skip_zeros();
  return method.amax(observer.histogram(), observer.stats(), options);
}

const CalibrationMethod* find_method(std::string_view name) {
  for (const CalibrationMethod* m : calibration_methods())
    if (m->name() == name) return m;
  return nullptr;
}

std::vector<uint64_t> search_counts(const AbsHistogram& h, const TensorStats& stats, const MethodOptions& options) {
  std::vector<uint64_t> c(h.counts().begin(), h.counts().begin() + h.used_bins());
  if (options.histogram_has_zeros && !c.empty()) c[0] -= std::min(c[0], stats.zeros);
  return c;
}

std::string method_names() {
  std::string out;
  for (const CalibrationMethod* m : calibration_methods()) out += (out.empty() ? "" : ", ") + std::string(m->name());
  return out;
}

}  // namespace q8
