// percentile: amax = right edge of the first bin where the cumulative count reaches P % of the
// total, compared in integers (docs/calibration.md).
#include <cmath>

#include "calib/methods/method.h"
#include "engine/ir/error.h"

namespace q8 {

class PercentileMethod final : public CalibrationMethod {
 public:
  std::string_view name() const override { return "percentile"; }
  double amax(const AbsHistogram& h, const TensorStats& stats, const MethodOptions& options) const override {
    check(options.percentile > 0 && options.percentile <= 100,
          "percentile must be in (0, 100], got " + std::to_string(options.percentile));
    const auto& c = h.counts();
    unsigned __int128 total = 0;
    for (uint64_t v : c) total += v;
    if (total == 0 || h.empty()) return 0.0;
    const auto p = (unsigned __int128)(std::llround(options.percentile * 1e6));  // P · 10^6
    unsigned __int128 cumulative = 0;
    for (size_t k = 0; k < c.size(); ++k) {
      cumulative += c[k];
      // cumulative / total >= P / 100  ⇔  cumulative · 10^8 >= P·10^6 · total
      if (cumulative * 100000000u >= p * total) return double(k + 1) * h.width();
    }
    return stats.max_abs;
  }
};

const CalibrationMethod& percentile_method() {
  static const PercentileMethod m;
  return m;
}

}  // namespace q8
