#include "calib/clipping.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace q8 {

double clipped_fraction(const AbsHistogram& h, const TensorStats& stats, double amax) {
  const uint64_t nonzero = stats.nonzero();
  if (amax >= stats.max_abs || nonzero == 0 || h.empty()) return 0.0;
  const double w = h.width(), bound = saturation_bound(amax);
  const auto& c = h.counts();
  double clipped = 0;
  for (size_t b = 0; b < c.size(); ++b) {
    if (!c[b]) continue;
    const double lo = double(b) * w, hi = lo + w;
    if (lo >= bound) clipped += double(c[b]);
    else if (hi > bound) clipped += double(c[b]) * (hi - bound) / w;
  }
  return std::min(1.0, clipped / double(nonzero));
}

std::vector<ClipWarning> clipping_warnings(const Calibrator& calibrator, const RangeTable& table, const Graph& graph,
                                           const MethodOptions& options, double limit) {
  std::vector<ClipWarning> out;
  for (const auto& [name, range] : table.activations) {
    auto obs = calibrator.observers().find(name);
    if (obs == calibrator.observers().end() || range.descriptor.amax.empty()) continue;
    const AbsHistogram& h = obs->second.histogram();
    const TensorStats& s = obs->second.stats();
    const bool input = std::any_of(graph.inputs.begin(), graph.inputs.end(), [&](const ValueInfo& v) { return v.name == name; });
    const double fraction = clipped_fraction(h, s, range.descriptor.amax[0]);
    if (!(fraction > limit || (input && fraction > 0))) continue;
    ClipWarning w{name, input, range.descriptor.method, range.descriptor.amax[0], s.max_abs, fraction, {}};
    for (const CalibrationMethod* m : calibration_methods()) {
      if (m->name() == range.descriptor.method) continue;
      const double amax = observer_amax(*m, obs->second, options), f = clipped_fraction(h, s, amax);
      if (f <= (input ? 0.0 : limit)) w.alternatives.push_back({std::string(m->name()), amax, f});
    }
    out.push_back(std::move(w));
  }
  std::sort(out.begin(), out.end(), [](const ClipWarning& a, const ClipWarning& b) {
    return a.graph_input != b.graph_input ? a.graph_input : a.fraction > b.fraction;
  });
  return out;
}

std::string describe(const ClipWarning& w) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s '%s' clips %.3g %% of its non-zero values at amax %.6g (%s; max |x| %.6g)",
                w.graph_input ? "graph input" : "tensor", w.tensor.c_str(), 100 * w.fraction, w.amax, w.method.c_str(), w.max_abs);
  std::string s = buf;
  for (size_t i = 0; i < w.alternatives.size(); ++i) {
    const ClipAlternative& a = w.alternatives[i];
    if (a.fraction == 0) std::snprintf(buf, sizeof buf, "%s %s %.6g clips none", i ? "," : ";", a.method.c_str(), a.amax);
    else std::snprintf(buf, sizeof buf, "%s %s %.6g clips %.3g %%", i ? "," : ";", a.method.c_str(), a.amax, 100 * a.fraction);
    s += buf;
  }
  return s;
}

}  // namespace q8
