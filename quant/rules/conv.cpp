// Conv: input per tensor; weight W[M, C/g, k…] per output channel along axis 0; bias FP32.
#include "engine/passes/graph_constants.h"
#include "quant/rules/rule.h"

namespace q8 {

NodeMark mark_conv(const Node& node, const MarkContext& ctx) {
  const Tensor* w = node.inputs.size() < 2 ? nullptr : ctx.index.constant(node.inputs[1]);
  if (!w) return {{}, false, "its weight is not constant"};
  return {{{0, false, std::nullopt, 1}, ctx.weight_need(node, *w)}, false, ""};
}

}  // namespace q8
