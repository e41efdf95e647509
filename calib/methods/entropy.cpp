// entropy: TensorRT's KL-divergence threshold (EntropyCalibration2) — for each candidate bin
// count n, P clips the outliers into bin n − 1, Q merges the unclipped bins into 128 levels
// spread over their non-zero bins, and amax = (n* − 0.5) · w for the first n* minimizing
// KL(P‖Q). Bin 0 counts as bin 1 does, as in pytorch-quantization, and candidates that saturate
// more than 1 % of the non-zero values are left out (docs/calibration.md).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "calib/methods/method.h"

namespace q8 {

// KL(P‖Q) for the first n bins of counts c (n >= kQuantizedLevels, c.size() bins in use), as
// docs/calibration.md defines.
double entropy_kl(const std::vector<uint64_t>& c, int64_t n) {
  const int64_t used = int64_t(c.size());
  std::vector<double> p(static_cast<size_t>(n));
  for (int64_t b = 0; b < n; ++b) p[size_t(b)] = double(c[size_t(b)]);
  for (int64_t b = n; b < used; ++b) p[size_t(n - 1)] += double(c[size_t(b)]);
  // Q: the unclipped bins c[0..n) merged into levels, each level's mass spread evenly over its
  // non-zero bins. (Built from P instead, Q would equal P at n = 128 and KL would be 0 there.)
  std::vector<double> q(size_t(n), 0.0);
  int64_t start = 0;
  for (int64_t level = 0; level < kQuantizedLevels; ++level) {
    // Bins b with floor(L · b / n) == level: b in [ceil(level · n / L), ceil((level + 1) · n / L)).
    const int64_t end = ((level + 1) * n + kQuantizedLevels - 1) / kQuantizedLevels;
    double mass = 0;
    int64_t nonzero = 0;
    for (int64_t b = start; b < end; ++b)
      if (c[size_t(b)] > 0) mass += double(c[size_t(b)]), ++nonzero;
    for (int64_t b = start; b < end; ++b)
      if (c[size_t(b)] > 0) q[size_t(b)] = mass / double(nonzero);
    start = end;
  }
  double sum_p = 0, sum_q = 0;
  for (int64_t b = 0; b < n; ++b) sum_p += p[size_t(b)], sum_q += q[size_t(b)];
  double kl = 0;
  for (int64_t b = 0; b < n; ++b) {
    if (p[size_t(b)] <= 0) continue;
    // Only bin n − 1 can have P > 0 where Q = 0 (all its mass is clipped outliers): that
    // divergence is infinite, and TensorRT's reference leaves such a candidate out.
    if (q[size_t(b)] <= 0) return std::numeric_limits<double>::infinity();
    const double pb = p[size_t(b)] / sum_p, qb = q[size_t(b)] / sum_q;
    kl += pb * std::log(pb / qb);
  }
  return kl;
}

class EntropyMethod final : public CalibrationMethod {
 public:
  std::string_view name() const override { return "entropy"; }
  double amax(const AbsHistogram& h, const TensorStats& stats, const MethodOptions& options) const override {
    // Bin 0 holds the exact zeros and every value below one bin width (post-ReLU zeros, the
    // near-zero bulk of a Softmax): it takes bin 1's count, as in pytorch-quantization, so that
    // spike cannot pull the threshold down (docs/calibration.md, "The zero spike").
    std::vector<uint64_t> c = search_counts(h, stats, options);
    // The spike guard: saturated(b) = the non-zero values in bins b and up (suffix sums).
    std::vector<double> above(c.size() + 1, 0.0);
    for (size_t b = c.size(); b-- > 0;) above[b] = above[b + 1] + double(c[b]);
    const double nonzero = double(stats.nonzero());
    if (c.size() > 1) c[0] = c[1];
    const int64_t used = int64_t(c.size());
    const auto kl = [&](int64_t n) {
      // A candidate that saturates more than kEntropySaturationLimit of the non-zero values is
      // left out: a spike at the threshold hides that loss from the KL divergence.
      const double bound = saturation_bound(double(n) - 0.5);  // in bins
      const size_t first = std::min(c.size(), size_t(std::ceil(bound)));
      if (nonzero > 0 && above[first] > kEntropySaturationLimit * nonzero) return std::numeric_limits<double>::infinity();
      return entropy_kl(c, n);
    };
    const auto n = h.empty() ? std::nullopt : least_cost_bins(used, kl);
    // The centre of the last kept bin, never above the largest value seen.
    return n ? std::min((double(*n) - 0.5) * h.width(), stats.max_abs) : stats.max_abs;
  }
};

const CalibrationMethod& entropy_method() {
  static const EntropyMethod m;
  return m;
}

}  // namespace q8
