#include "engine/passes/optimize_for_inference.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "engine/ir/clip_bounds.h"
#include "engine/ir/graph_index.h"
#include "engine/ops/op.h"
#include "engine/passes/transformer_fusions.h"

namespace q8 {

namespace {

constexpr const char* kMicrosoftDomain = "com.microsoft";

bool is(const Node& n, const char* op) { return n.op_type == op && n.domain.empty() && n.outputs.size() == 1; }

// Fuses the Add and activation that follow conv g.nodes[i], if any; true when it did.
bool fuse_conv(Graph& g, size_t i) {
  const GraphIndex index(g);
  const Node& conv = g.nodes[i];
  std::vector<size_t> consumed;
  std::string tail = conv.outputs[0], z;
  int r = index.sole_reader(tail);
  if (r >= 0 && is(g.nodes[size_t(r)], "Add") && g.nodes[size_t(r)].inputs.size() == 2) {
    const Node& add = g.nodes[size_t(r)];
    if (add.inputs[0] != add.inputs[1]) {
      z = add.inputs[0] == tail ? add.inputs[1] : add.inputs[0];
      consumed.push_back(size_t(r));
      tail = add.outputs[0];
      r = index.sole_reader(tail);
    }
  }
  std::string activation;
  std::vector<float> params;
  if (r >= 0 && is(g.nodes[size_t(r)], "Relu")) {
    activation = "Relu";
  } else if (r >= 0 && is(g.nodes[size_t(r)], "Clip")) {
    if (const std::optional<ClipBounds> b = clip_bounds(index, g.nodes[size_t(r)])) {
      activation = "Clip";
      params = {b->first.value_or(std::numeric_limits<float>::lowest()), b->second.value_or(std::numeric_limits<float>::max())};
    }
  }
  if (!activation.empty()) {
    consumed.push_back(size_t(r));
    tail = g.nodes[size_t(r)].outputs[0];
  }
  if (consumed.empty()) return false;
  Node fused = conv;
  fused.domain = kMicrosoftDomain;
  fused.op_type = "FusedConv";
  if (!z.empty()) {
    fused.inputs.resize(3);  // an absent bias stays ""
    fused.inputs.push_back(z);
  }
  if (!activation.empty()) fused.attributes["activation"] = Attribute::of_string(activation);
  if (!params.empty()) fused.attributes["activation_params"] = Attribute::of_floats(params);
  fused.outputs = {tail};
  // The fused node takes the place of the last node it replaces, after Z's producer.
  g.nodes[consumed.back()] = std::move(fused);
  consumed.pop_back();
  consumed.push_back(i);
  std::sort(consumed.rbegin(), consumed.rend());
  for (size_t k : consumed) g.nodes.erase(g.nodes.begin() + long(k));
  return true;
}

// Identity nodes removed, their readers reading the input itself (ONNX Runtime's identity
// elimination): exporters route shared parameters through them (PyTorch 2's shared zero biases),
// which hides the constants the fusions and the layout pass look for. An Identity whose output is
// a graph output stays; none is removed from a graph with subgraphs, whose bodies may read outer
// values by name. A copy removed: the same values.
int eliminate_identities(Graph& g) {
  const bool subgraphs = std::any_of(g.nodes.begin(), g.nodes.end(), [](const Node& n) {
    return std::any_of(n.attributes.begin(), n.attributes.end(), [](const auto& a) { return a.second.kind == Attribute::Kind::Graph; });
  });
  if (subgraphs) return 0;
  std::map<std::string, std::string> source;  // Identity output → the value it copies
  std::set<std::string> outputs;
  for (const ValueInfo& v : g.outputs) outputs.insert(v.name);
  std::vector<Node> kept;
  for (Node& n : g.nodes) {
    for (std::string& in : n.inputs)
      if (auto it = source.find(in); it != source.end()) in = it->second;
    if (is(n, "Identity") && n.inputs.size() == 1 && !n.inputs[0].empty() && !outputs.count(n.outputs[0])) {
      source[n.outputs[0]] = n.inputs[0];
      continue;
    }
    kept.push_back(std::move(n));
  }
  const int removed = int(g.nodes.size() - kept.size());
  g.nodes = std::move(kept);
  return removed;
}

// Constant nodes become initializers (ONNX Runtime does so when it loads a graph): their values
// computed once, not by a node each run, and seen by the fusions as the constants they are. One
// whose output is a graph output stays; none is moved in a graph with subgraphs (as above).
int constants_to_initializers(Graph& g) {
  if (std::any_of(g.nodes.begin(), g.nodes.end(), [](const Node& n) { return n.has_subgraphs(); })) return 0;
  std::set<std::string> outputs;
  for (const ValueInfo& v : g.outputs) outputs.insert(v.name);
  const OpContext ctx{g.opset(), {}};
  std::vector<Node> kept;
  for (Node& n : g.nodes) {
    if (is(n, "Constant") && n.inputs.empty() && !n.outputs[0].empty() && !outputs.count(n.outputs[0])) {
      g.initializers[n.outputs[0]] = find_op("Constant")->create(n, ctx)->run({}).at(0);
      continue;
    }
    kept.push_back(std::move(n));
  }
  const int moved = int(g.nodes.size() - kept.size());
  g.nodes = std::move(kept);
  return moved;
}

}  // namespace

std::string InferenceOptimization::summary() const {
  if (int8_graph && layout_pass) return "graph optimization: " + layout.summary() + " (the INT8 engine's, for the CPU INT8 backend)";
  if (int8_graph) return "graph optimization: none (the graph holds the INT8 engine's fused ops)";
  return "graph optimization: " + (constants ? std::to_string(constants) + " Constant to initializers, " : std::string()) +
         (identities ? std::to_string(identities) + " Identity removed, " : std::string()) +
         std::to_string(fold.folded.size()) + " BatchNormalization folded, " + std::to_string(fused_convs) +
         " Conv fused with Add/activation (FusedConv), " + std::to_string(fused_layer_norms) + " LayerNormalization fused, " +
         std::to_string(fused_gelus) + " Gelu fused, " + std::to_string(fused_matmuls) + " MatMul fused with bias (MatMulBias)" + (layout_pass ? ", " + layout.summary() : std::string());
}

std::optional<GraphOptimizationLevel> graph_optimization_level(const std::string& name, const std::string& what) {
  check_argument(name == "disable" || name == "extended" || name == "all", what + " '" + name + "': disable, extended or all");
  if (name == "disable") return std::nullopt;
  return name == "extended" ? GraphOptimizationLevel::Extended : GraphOptimizationLevel::All;
}

InferenceOptimization optimize_for_inference(Graph& g, GraphOptimizationLevel level, bool cpu_int8) {
  InferenceOptimization result;
  result.layout_pass = level == GraphOptimizationLevel::All;
  result.int8_graph = std::any_of(g.nodes.begin(), g.nodes.end(), [](const Node& n) { return n.domain == kInt8Domain; });
  if (result.int8_graph) {
    result.layout_pass = result.layout_pass && cpu_int8;
    if (result.layout_pass) result.layout = assign_channels_last(g);
    return result;
  }
  result.constants = constants_to_initializers(g);
  result.identities = eliminate_identities(g);
  result.fold = fold_batch_norm(g);
  size_t i = 0;
  while (i < g.nodes.size()) {
    if (is(g.nodes[i], "Conv") && fuse_conv(g, i)) ++result.fused_convs;  // the node now at i is new to the loop
    else ++i;
  }
  result.fused_layer_norms = fuse_layer_normalization(g);
  result.fused_gelus = fuse_gelu(g);
  result.fused_matmuls = fuse_matmul_bias(g);
  const auto import_domain = [&](const char* domain) {
    if (!std::any_of(g.opsets.begin(), g.opsets.end(), [&](const OpsetImport& o) { return o.domain == domain; })) g.opsets.push_back({domain, 1});
  };
  if (result.fused_convs > 0) import_domain(kMicrosoftDomain);
  if (result.fused_matmuls > 0) import_domain(kFusedFloatDomain);
  if (result.layout_pass) result.layout = assign_channels_last(g);
  return result;
}

}  // namespace q8
