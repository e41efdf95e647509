// Gemm: A per tensor (transA only changes which axis is K); a constant B per output channel
// along axis 0 if transB, else axis 1; C FP32. A non-constant B: FP32 unless --quantize-bmm,
// then an activation, per tensor.
#include "engine/passes/graph_constants.h"
#include "quant/rules/rule.h"

namespace q8 {

NodeMark mark_gemm(const Node& node, const MarkContext& ctx) {
  if (node.inputs.size() < 2) return {{}, false, "it has no B"};
  if (ctx.is_constant(node.inputs[0])) return {{}, false, kKnownA};
  if (!ctx.is_constant(node.inputs[1]) && !ctx.options.quantize_bmm) return {{}, false, kBmmReason};
  const Tensor* b = ctx.index.constant(node.inputs[1]);
  if (!b && ctx.is_constant(node.inputs[1])) return {{}, false, kShapeB};
  if (!b) return {{{0, false, std::nullopt, 1}, {1, false, std::nullopt, 1}}, false, ""};
  if (b->rank() != 2) return {{}, false, "its constant B is not 2-D"};
  return {{{0, false, std::nullopt, 1}, ctx.weight_need(node, *b)}, false, ""};
}

}  // namespace q8
