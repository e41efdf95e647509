// mse: the threshold t = n · w (n from 128 to N) minimizing Σ c[b] · (v_b − x̂(v_b))² over bin
// centres v_b, x̂(v) = min(round_half_even(v / s), 127) · s, s = t / 127; exact zeros, which
// quantize without error, are left out (docs/calibration.md).
#include <cmath>
#include <limits>

#include "calib/methods/method.h"
#include "engine/ir/rounding.h"

namespace q8 {

class MseMethod final : public CalibrationMethod {
 public:
  std::string_view name() const override { return "mse"; }
  double amax(const AbsHistogram& h, const TensorStats& stats, const MethodOptions& options) const override {
    const std::vector<uint64_t> c = search_counts(h, stats, options);
    const int64_t used = int64_t(c.size());
    const double w = h.width();
    const auto squared_error = [&](int64_t n) {
      const double s = double(n) * w / 127.0;
      double error = 0;
      for (int64_t b = 0; b < used; ++b) {
        if (!c[size_t(b)]) continue;
        const double v = (double(b) + 0.5) * w;
        const double q = std::min(round_half_even(v / s), 127.0) * s;
        error += double(c[size_t(b)]) * (v - q) * (v - q);
      }
      return error;
    };
    const auto n = h.empty() ? std::nullopt : least_cost_bins(used, squared_error);
    return n ? std::min(double(*n) * w, stats.max_abs) : stats.max_abs;
  }
};

const CalibrationMethod& mse_method() {
  static const MseMethod m;
  return m;
}

}  // namespace q8
