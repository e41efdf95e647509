#include "quant/activation_scales.h"

#include <algorithm>
#include <functional>
#include <optional>

namespace q8 {

std::map<std::string, float> activation_scales(const GraphIndex& index, const std::vector<NodeMark>& marks, const RangeTable& table,
                                               const std::set<std::string>& pinned, const std::set<std::string>& data_independent) {
  const Graph& g = index.graph();
  std::map<std::string, size_t> carrier_of;  // carrier output → node index
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (marks[i].scale_carrier && !n.inputs.empty() && !n.outputs.empty()) carrier_of[n.outputs[0]] = i;
  }
  std::vector<std::string> missing;
  std::map<std::string, float> scales;
  std::function<std::optional<float>(const std::string&)> scale_of = [&](const std::string& t) -> std::optional<float> {
    if (auto it = scales.find(t); it != scales.end()) return it->second;
    std::optional<float> s;
    if (auto c = carrier_of.find(t); c != carrier_of.end() && !pinned.count(t)) {
      const Node& n = g.nodes[c->second];
      const size_t count = n.op_type == "Concat" ? n.inputs.size() : 1;
      bool joins_known = false;  // a Concat joining values known without the data: its own range covers them
      for (size_t k = 0; k < count; ++k) joins_known = joins_known || (!n.inputs[k].empty() && data_independent.count(n.inputs[k]));
      if (!(joins_known && count > 1 && table.activations.count(t)))
        for (size_t k = 0; k < count; ++k) {
          if (n.inputs[k].empty() || data_independent.count(n.inputs[k])) continue;
          if (auto in = scale_of(n.inputs[k])) s = std::max(s.value_or(0.0f), *in);
        }
    }
    if (!s) {
      auto it = table.activations.find(t);
      if (it == table.activations.end()) {
        missing.push_back(t);
        return std::nullopt;
      }
      s = float(it->second.scale());
    }
    scales[t] = *s;
    return s;
  };
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const InputNeed& need : marks[i].inputs)
      if (!need.weight) scale_of(g.nodes[i].inputs[need.input]);
  if (!missing.empty()) {
    std::sort(missing.begin(), missing.end());
    missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "'" : ", '") + m + "'";
    throw Error("the calibration table has no range for " + std::to_string(missing.size()) + " tensors the rules quantize: " + list);
  }
  return scales;
}

std::optional<std::string> scale_source(const GraphIndex& index, const std::vector<NodeMark>& marks, const std::set<std::string>& pinned,
                                        const std::set<std::string>& data_independent, const std::string& t) {
  const int p = index.producer(t);
  if (p < 0 || pinned.count(t) || !marks[size_t(p)].scale_carrier) return t;
  const Node& n = index.node(p);
  if (n.inputs.empty() || n.outputs.empty() || n.outputs[0] != t) return t;
  if (n.op_type == "Concat" && n.inputs.size() > 1) return std::nullopt;
  if (n.inputs[0].empty() || data_independent.count(n.inputs[0])) return t;
  return scale_source(index, marks, pinned, data_independent, n.inputs[0]);
}

}  // namespace q8
