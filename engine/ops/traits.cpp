#include "engine/ops/traits.h"

#include <algorithm>
#include <iterator>


namespace q8 {

namespace {

// Reasons several ops share.
constexpr const char* kElementwise = "an elementwise function, FP32 between its neighbours' Q/DQ";
constexpr const char* kTypes = "works on shapes, indices or masks, not on activations";
constexpr const char* kConstant = "a constant";
constexpr const char* kSubgraphs = "runs its subgraphs on the host, in FP32";
constexpr const char* kQdq = "a quantization op itself";
constexpr const char* kReduce = "a reduction, FP32 between its neighbours' Q/DQ";
constexpr const char* kInference = "an op of the inference graph's rewrites, after quantization";
constexpr const char* kFused = "a fused INT8 op of a lowered plan";

bool always(const Node&, const GraphIndex&, std::string&) { return true; }

// Nearest Resize only selects values; any other mode interpolates new ones.
bool nearest(const Node& node, const GraphIndex&, std::string& why) {
  if (node.attr_string("mode", "nearest") == "nearest") return true;
  why = "Resize that is not nearest computes new values";
  return false;
}

// Pad in constant mode with zeros (the constant_value input, or opset 2's `value` attribute) keeps
// zeros zeros. Reflect and edge modes copy values, which commutes too, but the lowering runs Pad on
// int8 in constant mode only.
bool pads_with_zeros(const Node& node, const GraphIndex& index, std::string& why) {
  if (node.attr_string("mode", "constant") != "constant") {
    why = "it pads by reflection or edge values";
    return false;
  }
  if (node.has_input(2)) {
    const Tensor* v = index.constant(node.inputs[2]);
    if (!v || v->numel() != 1 || v->element_as_double(0) != 0.0) {
      why = "it pads with a non-zero value";
      return false;
    }
  }
  if (node.has("value") && node.attr_float("value", 0.0f) != 0.0f) {
    why = "it pads with a non-zero value";
    return false;
  }
  return true;
}

const OpTraits kTraits[] = {
#include "engine/ops/traits.inc"
};

}  // namespace

std::span<const OpTraits> op_traits() { return kTraits; }

const OpTraits* find_traits(std::string_view domain, std::string_view op_type) {
  if (domain == "ai.onnx") domain = "";
  auto it = std::find_if(std::begin(kTraits), std::end(kTraits), [&](const OpTraits& t) { return t.domain == domain && t.op_type == op_type; });
  return it == std::end(kTraits) ? nullptr : &*it;
}

const OpTraits* find_traits(const Node& node) { return find_traits(node.domain, node.op_type); }

std::string fp32_reason(const Node& node) {
  const OpTraits* t = find_traits(node);
  return t && !t->fp32_reason.empty() ? std::string(t->fp32_reason) : "no INT8 rule for " + node.op_type;
}

bool commutes_with_quantize(const Node& node, const GraphIndex& index, std::string& why) {
  const OpTraits* t = find_traits(node);
  if (!t || !t->commutes) {
    why = node.op_type + " does not commute with quantization";
    return false;
  }
  return t->commutes(node, index, why);
}

std::set<std::string> data_independent_values(const Graph& graph) {
  std::set<std::string> known;
  for (const auto& [name, t] : graph.initializers) known.insert(name);
  for (const Node& n : graph.nodes) {
    const OpTraits* traits = find_traits(n);
    bool independent = !n.has_subgraphs();
    for (size_t i = 0; i < n.inputs.size() && independent; ++i)
      independent = n.inputs[i].empty() || known.count(n.inputs[i]) || (i == 0 && traits && traits->dims_only);
    if (independent)
      for (const auto& o : n.outputs)
        if (!o.empty()) known.insert(o);
  }
  return known;
}

}  // namespace q8
