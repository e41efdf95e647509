#include "engine/passes/graph_constants.h"

#include <set>

#include "engine/ir/graph_index.h"

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

void drop_unused_initializers(Graph& graph) {
  const GraphIndex index(graph);
  for (auto it = graph.initializers.begin(); it != graph.initializers.end();)
    it = index.uses(it->first) == 0 ? graph.initializers.erase(it) : std::next(it);
}

}  // namespace q8
