// ConvTranspose: input per tensor; weight W[C, M/g, k…] per output channel along axis 1 — never
// axis 0 — with output channel o = gi·(M/g) + j; bias FP32. The export writes M/g scales on
// axis 1 (the max over groups when g > 1, with a warning); docs/quantization.md.
#include "engine/passes/graph_constants.h"
#include "quant/rules/rule.h"

namespace q8 {

NodeMark mark_conv_transpose(const Node& node, const MarkContext& ctx) {
  const Tensor* w = node.inputs.size() < 2 ? nullptr : ctx.index.constant(node.inputs[1]);
  if (!w) return {{}, false, "its weight is not constant"};
  return {{{0, false, std::nullopt, 1}, ctx.weight_need(node, *w, node.attr_int("group", 1))}, false, ""};
}

}  // namespace q8
