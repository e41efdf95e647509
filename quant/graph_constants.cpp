#include "quant/graph_constants.h"

#include <set>

namespace q8 {

std::string add_initializer(Graph& graph, const std::string& base, Tensor value) {
  std::set<std::string> used;
  for (const auto& [k, v] : graph.initializers) used.insert(k);
  for (const Node& n : graph.nodes)
    for (const auto& o : n.outputs) used.insert(o);
  for (const auto& v : graph.inputs) used.insert(v.name);
  std::string name = base;
  for (int i = 1; used.count(name); ++i) name = base + "_" + std::to_string(i);
  graph.initializers[name] = std::move(value);
  return name;
}

int consumers(const Graph& graph, const std::string& value) {
  int count = 0;
  for (const Node& n : graph.nodes)
    for (const auto& in : n.inputs) count += in == value;
  for (const auto& o : graph.outputs) count += o.name == value;
  return count;
}

}  // namespace q8
