// max: amax = max |x| over every finite value seen (docs/calibration.md).
#include "calib/methods/method.h"

namespace q8 {

class MaxMethod final : public CalibrationMethod {
 public:
  std::string_view name() const override { return "max"; }
  double amax(const AbsHistogram&, const TensorStats& stats, const MethodOptions&) const override { return stats.max_abs; }
};

const CalibrationMethod& max_method() {
  static const MaxMethod m;
  return m;
}

}  // namespace q8
