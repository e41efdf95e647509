#include "engine/ir/graph_index.h"

namespace q8 {

GraphIndex::GraphIndex(const Graph& graph) : graph_(graph) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (const auto& in : graph.nodes[i].inputs)
      if (!in.empty()) readers_[in].push_back(int(i));
    for (const auto& out : graph.nodes[i].outputs)
      if (!out.empty()) producers_.emplace(out, int(i));
  }
  for (const auto& o : graph.outputs) ++output_uses_[o.name];
  // The first declaration wins, as Graph::declared's search order (inputs, outputs, value_info).
  for (const auto* list : {&graph.inputs, &graph.outputs, &graph.value_info})
    for (const ValueInfo& v : *list) declared_.emplace(v.name, &v);
}

const Tensor* GraphIndex::constant(const std::string& value) const {
  if (auto it = graph_.initializers.find(value); it != graph_.initializers.end()) return &it->second;
  const int p = producer(value);
  if (p < 0) return nullptr;
  const Node& n = node(p);
  return n.op_type == "Constant" && n.domain.empty() && n.outputs[0] == value ? n.attr_tensor("value") : nullptr;
}

const ValueInfo* GraphIndex::declared(const std::string& value) const {
  auto it = declared_.find(value);
  return it == declared_.end() ? nullptr : it->second;
}

int GraphIndex::producer(const std::string& value) const {
  auto it = producers_.find(value);
  return it == producers_.end() ? -1 : it->second;
}

std::string GraphIndex::producer_op(const std::string& value) const {
  const int p = producer(value);
  return p < 0 || constant(value) ? "" : node(p).op_type;
}

const std::vector<int>& GraphIndex::readers(const std::string& value) const {
  static const std::vector<int> kNone;
  auto it = readers_.find(value);
  return it == readers_.end() ? kNone : it->second;
}

bool GraphIndex::is_graph_output(const std::string& value) const { return output_uses_.count(value) > 0; }

int GraphIndex::uses(const std::string& value) const {
  auto it = output_uses_.find(value);
  return int(readers(value).size()) + (it == output_uses_.end() ? 0 : it->second);
}

int GraphIndex::sole_reader(const std::string& value) const {
  const std::vector<int>& r = readers(value);
  return r.size() == 1 && !is_graph_output(value) ? r[0] : -1;
}

}  // namespace q8
