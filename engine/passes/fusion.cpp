#include "engine/passes/fusion.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace q8 {

bool is_op(const Node& n, const char* op) { return n.op_type == op && n.domain.empty() && n.outputs.size() == 1; }

std::optional<float> constant_scalar(const GraphIndex& index, const std::string& value) {
  const Tensor* t = index.constant(value);
  if (!t || t->dtype() != DType::Float32 || t->numel() != 1) return std::nullopt;
  return t->data<float>()[0];
}

bool near(float v, double expected) { return std::abs(double(v) - expected) <= 1e-5 * std::abs(expected); }

std::string other_input(const Node& n, const std::string& value) {
  if (n.inputs.size() != 2 || n.inputs[0] == n.inputs[1]) return "";
  if (n.inputs[0] == value) return n.inputs[1];
  return n.inputs[1] == value ? n.inputs[0] : "";
}

int sole_reader_op(const GraphIndex& index, const std::string& value, const char* op) {
  const int r = index.sole_reader(value);
  return r >= 0 && is_op(index.node(r), op) ? r : -1;
}

int apply_fusions(Graph& graph, const std::vector<FusedChain>& fusions) {
  std::set<int> taken;
  std::vector<std::optional<Node>> replacement(graph.nodes.size());
  std::vector<bool> removed(graph.nodes.size(), false);
  int applied = 0;
  for (const FusedChain& f : fusions) {
    if (f.nodes.empty() || std::any_of(f.nodes.begin(), f.nodes.end(), [&](int i) { return taken.count(i) != 0; })) continue;
    taken.insert(f.nodes.begin(), f.nodes.end());
    const int last = *std::max_element(f.nodes.begin(), f.nodes.end());
    for (int i : f.nodes) removed[size_t(i)] = true;
    replacement[size_t(last)] = f.fused;
    ++applied;
  }
  std::vector<Node> kept;
  kept.reserve(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (replacement[i]) kept.push_back(std::move(*replacement[i]));
    else if (!removed[i]) kept.push_back(std::move(graph.nodes[i]));
  }
  graph.nodes = std::move(kept);
  return applied;
}

int fuse_matches(Graph& graph, const std::function<std::optional<FusedChain>(const GraphIndex&, int)>& match) {
  const GraphIndex index(graph);
  std::vector<FusedChain> found;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    if (std::optional<FusedChain> f = match(index, int(i))) found.push_back(std::move(*f));
  return apply_fusions(graph, found);
}

}  // namespace q8
