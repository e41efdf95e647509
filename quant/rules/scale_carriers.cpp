// Scale carriers: ops whose output is a rearrangement or a monotone selection of input 0 (Relu,
// MaxPool, Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Concat, nearest Resize, zero Pad)
// give their output input 0's scale, so a quantized consumer reads the producer's scale.
#include "quant/graph_constants.h"
#include "quant/rules/rule.h"

namespace q8 {

NodeMark mark_scale_carrier(const Node&, const MarkContext&) { return {{}, true, ""}; }

// Concat carries one scale shared by every input (the largest of theirs).
NodeMark mark_concat(const Node&, const MarkContext&) { return {{}, true, ""}; }

NodeMark mark_resize(const Node& node, const MarkContext&) {
  if (node.attr_string("mode", "nearest") != "nearest") return {{}, false, "it interpolates (mode is not nearest)"};
  return {{}, true, ""};
}

NodeMark mark_pad(const Node& node, const MarkContext& ctx) {
  if (node.attr_string("mode", "constant") != "constant") return {{}, false, "it pads by reflection or edge values"};
  if (node.inputs.size() > 2 && !node.inputs[2].empty()) {
    const Tensor* v = ctx.index.constant(node.inputs[2]);
    if (!v || v->numel() != 1 || v->element_as_double(0) != 0.0) return {{}, false, "it pads with a non-zero value"};
  }
  if (node.has("value") && node.attr_float("value", 0.0f) != 0.0f) return {{}, false, "it pads with a non-zero value"};
  return {{}, true, ""};
}

}  // namespace q8
