// entropy: TensorRT's KL-divergence threshold (EntropyCalibration2) — for each candidate bin
// count n, P clips the outliers into bin n − 1, Q merges the unclipped bins into 128 levels
// spread over their non-zero bins, and amax = (n* + 0.5) · w for the first n* minimizing
// KL(P‖Q). Bin 0 counts as bin 1 does, as in pytorch-quantization, and candidates that saturate
// more than 1 % of the non-zero values are left out (docs/calibration.md).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "calib/methods/method.h"

namespace q8 {

namespace {

// Prefix sums over the counts, so each candidate's KL costs O(levels) instead of O(bins):
// count[i] = Σ_{b<i} c_b, nonzero[i] = #{b < i : c_b > 0}, c_log_c[i] = Σ_{b<i} c_b · ln c_b.
struct CountPrefix {
  std::vector<double> count, c_log_c;
  std::vector<int64_t> nonzero;
  explicit CountPrefix(const std::vector<uint64_t>& c) : count(c.size() + 1, 0.0), c_log_c(c.size() + 1, 0.0), nonzero(c.size() + 1, 0) {
    for (size_t b = 0; b < c.size(); ++b) {
      const double v = double(c[b]);
      count[b + 1] = count[b] + v;
      c_log_c[b + 1] = c_log_c[b] + (v > 0 ? v * std::log(v) : 0.0);
      nonzero[b + 1] = nonzero[b] + (c[b] > 0);
    }
  }
};

// KL(P‖Q) for the first n bins of counts c (n >= kQuantizedLevels, c.size() bins in use), as
// docs/calibration.md defines it, summed by levels: with S_P = Σ P = Σ c and S_Q = Σ Q = Σ_{b<n} c,
//   KL = (Σ P_b ln P_b − Σ P_b ln Q_b) / S_P − ln S_P + ln S_Q,
// where Q is constant (m_l / k_l) on the non-zero bins of level l, so Σ_{b in l} c_b ln Q_b =
// m_l ln(m_l / k_l); only the last bin, which also holds the clipped outliers, needs a correction.
double entropy_kl(const std::vector<uint64_t>& c, const CountPrefix& pre, int64_t n) {
  const size_t last = size_t(n - 1);
  const double total = pre.count.back(), kept = pre.count[size_t(n)];
  const double outliers = total - kept, p_last = double(c[last]) + outliers;
  // Bin n − 1 holds only clipped outliers: P > 0 where Q = 0, an infinite divergence that
  // TensorRT's reference leaves out.
  if (c[last] == 0) return p_last > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  const double p_log_p = pre.c_log_c[last] + p_last * std::log(p_last);
  double p_log_q = 0, q_last = 0;
  int64_t start = 0;
  for (int64_t level = 0; level < kQuantizedLevels; ++level) {
    // Bins b with floor(L · b / n) == level: b in [ceil(level · n / L), ceil((level + 1) · n / L)).
    const int64_t end = ((level + 1) * n + kQuantizedLevels - 1) / kQuantizedLevels;
    const double mass = pre.count[size_t(end)] - pre.count[size_t(start)];
    const int64_t members = pre.nonzero[size_t(end)] - pre.nonzero[size_t(start)];
    if (members > 0) {
      q_last = mass / double(members);  // bin n − 1 is in the last level (n >= L)
      p_log_q += mass * std::log(q_last);
    }
    start = end;
  }
  p_log_q += outliers * std::log(q_last);  // P_{n−1} = c_{n−1} + outliers, all at Q_{n−1}
  return (p_log_p - p_log_q) / total - std::log(total) + std::log(kept);
}

}  // namespace

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
    const CountPrefix prefix(c);
    const auto kl = [&](int64_t n) {
      // A candidate that saturates more than kEntropySaturationLimit of the non-zero values is
      // left out: a spike at the threshold hides that loss from the KL divergence.
      const double bound = saturation_bound(double(n) + 0.5);  // in bins
      const size_t first = std::min(c.size(), size_t(std::ceil(bound)));
      if (nonzero > 0 && above[first] > kEntropySaturationLimit * nonzero) return std::numeric_limits<double>::infinity();
      return entropy_kl(c, prefix, n);
    };
    const auto n = h.empty() ? std::nullopt : least_cost_bins(used, kl);
    // TensorRT's threshold, (n* + 0.5) bins, never above the largest value seen.
    return n ? std::min((double(*n) + 0.5) * h.width(), stats.max_abs) : stats.max_abs;
  }
};

const CalibrationMethod& entropy_method() {
  static const EntropyMethod m;
  return m;
}

}  // namespace q8
