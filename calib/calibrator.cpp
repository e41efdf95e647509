#include "calib/calibrator.h"

#include <algorithm>
#include <cmath>

#include "calib/clipping.h"
#include "calib/weight_ranges.h"
#include "engine/cpu/parallel.h"
#include "engine/ops/traits.h"

namespace q8 {

const std::string& MethodChoice::method_for(const std::string& tensor, const std::string& producer_op) const {
  if (auto it = overrides.find(tensor); it != overrides.end()) return it->second;
  if (auto it = overrides.find(producer_op); it != overrides.end()) return it->second;
  return default_method;
}

Calibrator::Calibrator(const Graph& graph, ObserverOptions options) : options_(options) {
  // Activations: what the data decides (values known without it are not observed: traits.h).
  const std::set<std::string> known = data_independent_values(graph);
  for (const Node& n : graph.nodes)
    for (const auto& o : n.outputs)
      if (!o.empty() && !known.count(o)) candidates_.insert(o), producer_op_[o] = n.op_type;
  for (const auto& in : graph.inputs)
    if (in.dtype == DType::Float32) candidates_.insert(in.name);
  // SmoothQuant's statistics: per-channel maxima of what a MatMul (or a Gemm without transA)
  // multiplies by a constant 2-D weight.
  for (const Node& n : graph.nodes) {
    const bool weighted = (n.op_type == "MatMul" || (n.op_type == "Gemm" && n.attr_int("transA", 0) == 0)) && n.domain.empty() &&
                          n.inputs.size() >= 2 && graph.constant(n.inputs[1]) && graph.constant(n.inputs[1])->rank() == 2;
    if (weighted && candidates_.count(n.inputs[0])) channel_tensors_.insert(n.inputs[0]);
  }
  // Tensors taken from another's observer instead of being scanned (docs/calibration.md, "Relu
  // outputs and reshaped tensors"), in runs with histograms (statistics alone cost little).
  // Nodes come in topological order, so a source that is itself derived resolves to its root.
  if (!options_.histograms) return;
  for (const Node& n : graph.nodes) {
    const OpTraits* traits = find_traits(n);
    const Values values = traits ? traits->values : Values::Computed;
    const bool relu = values == Values::Relu;
    if (values == Values::Computed || n.inputs.empty() || n.outputs.empty()) continue;
    const std::string &x = n.inputs[0], &y = n.outputs[0];
    if (!candidates_.count(x) || !candidates_.count(y) || derived_.count(y) || roots_.count(y)) continue;
    Derivation d = derived_.count(x) ? derived_.at(x) : Derivation{x, false};
    d.relu = d.relu || relu;  // Relu(Relu(x)) = Relu(x), and Relu commutes with moving values
    derived_[y] = d;
    roots_[d.root] = roots_[d.root] || d.relu;
  }
}

void Calibrator::observe(const std::string& name, const Tensor& t) {
  if (t.dtype() != DType::Float32 || !candidates_.count(name)) return;
  if (channel_tensors_.count(name) && t.rank() >= 1 && t.dims().back() > 0) {
    const int64_t k = t.dims().back();
    std::vector<float>& m = channel_amax_[name];
    if (int64_t(m.size()) != k) m.assign(size_t(k), 0.0f);  // a width that changes keeps the last run's
    const float* p = t.data<float>();
    for (int64_t i = 0; i < t.numel(); ++i)
      if (std::isfinite(p[i])) m[size_t(i % k)] = std::max(m[size_t(i % k)], std::fabs(p[i]));
  }
  if (derived_.count(name)) return;
  const auto root = roots_.find(name);
  auto& observers = root != roots_.end() ? pending_ : observers_;
  auto it = observers.find(name);
  if (it == observers.end())
    it = observers.emplace(name, root != roots_.end() && root->second
                                     ? TensorObserver::signed_split(options_.bins, options_.skip_zeros)
                                     : TensorObserver(options_.bins, options_.skip_zeros, options_.histograms)).first;
  it->second.observe(t);
}

void Calibrator::settle() {
  const auto add = [&](const std::string& name, const TensorObserver& obs) {
    auto it = observers_.find(name);
    if (it == observers_.end()) observers_.emplace(name, obs);
    else it->second.merge(obs);
  };
  for (const auto& [root, obs] : pending_) {
    const bool split = roots_.at(root);
    const TensorObserver same = split ? obs.unsigned_part() : obs;
    add(root, same);
    for (const auto& [y, d] : derived_)
      if (d.root == root) add(y, d.relu ? obs.relu_part() : same);
  }
  pending_.clear();
}

void Calibrator::attach(Executor& exec) {
  exec.set_hook([this](const Node& node, size_t, const std::vector<Tensor>& outputs) {
    for (size_t k = 0; k < node.outputs.size() && k < outputs.size(); ++k)
      if (!node.outputs[k].empty() && !outputs[k].empty()) observe(node.outputs[k], outputs[k]);
  });
}

void Calibrator::observe_inputs(const TensorMap& inputs) {
  for (const auto& [name, t] : inputs) observe(name, t);
}

void Calibrator::merge(const std::map<std::string, TensorObserver>& other) {
  for (const auto& [name, obs] : other) {
    check(candidates_.count(name) > 0, "histograms hold tensor '" + name + "', which is not an activation of this model");
    check(obs.histogram().bins() == options_.bins, "cannot merge histograms of " + std::to_string(obs.histogram().bins()) +
                                                        " bins into a run of " + std::to_string(options_.bins));
    check(obs.skip_zeros() == options_.skip_zeros, "cannot merge histograms made with a different --skip-zeros setting");
    auto it = observers_.find(name);
    if (it == observers_.end()) observers_.emplace(name, obs);
    else it->second.merge(obs);
  }
}

void Calibrator::merge_channels(const std::map<std::string, std::vector<float>>& other) {
  for (const auto& [name, m] : other) {
    std::vector<float>& mine = channel_amax_[name];
    if (mine.size() != m.size()) mine.assign(m.size(), 0.0f);
    for (size_t c = 0; c < m.size(); ++c) mine[c] = std::max(mine[c], m[c]);
  }
}

RangeTable Calibrator::finalize(const Graph& graph, const MethodChoice& choice) const {
  // Data with no finite value gives no range to calibrate from: every amax would be 0.
  for (const ValueInfo& in : graph.inputs) {
    const auto it = observers_.find(in.name);
    if (it == observers_.end()) continue;
    const TensorStats& s = it->second.stats();
    check(s.elements > 0 || s.nan + s.pos_inf + s.neg_inf == 0,
          "every value of input '" + in.name + "' observed is NaN or ±Inf (" + std::to_string(s.nan) + " NaN, " +
              std::to_string(s.pos_inf + s.neg_inf) + " ±Inf): nothing to calibrate from");
  }
  // Each tensor's threshold search is independent: they run in parallel, one tensor per task.
  std::vector<std::pair<const std::string*, const TensorObserver*>> items;
  for (const auto& [name, obs] : observers_) items.emplace_back(&name, &obs);
  std::vector<TensorRange> ranges(items.size());
  parallel_for(int64_t(items.size()), 1, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const std::string& name = *items[size_t(i)].first;
      const TensorObserver& obs = *items[size_t(i)].second;
      TensorRange& r = ranges[size_t(i)];
      r.descriptor.tensor = name;
      r.producer_op = producer_op_.count(name) ? producer_op_.at(name) : "";
      const std::string& method_name = choice.method_for(name, r.producer_op);
      const CalibrationMethod* method = find_method(method_name);
      check(method != nullptr, "unknown calibration method '" + method_name + "' (methods: " + method_names() + ")");
      r.descriptor.method = method_name;
      double amax = observer_amax(*method, obs, choice.options);
      if (amax < kMinAmax) amax = 0.0;  // degenerate: docs/calibration.md
      r.descriptor.amax = {amax};
      r.stats = obs.stats();
      r.clipped = clipped_fraction(obs.histogram(), obs.stats(), amax);
      if (auto c = channel_amax_.find(name); c != channel_amax_.end()) r.channel_amax.assign(c->second.begin(), c->second.end());
    }
  });
  RangeTable table;
  for (size_t i = 0; i < items.size(); ++i) table.activations[*items[i].first] = std::move(ranges[i]);
  table.weights = weight_ranges(graph);
  return table;
}

}  // namespace q8
