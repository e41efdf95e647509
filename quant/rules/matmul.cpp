// MatMul: a constant B[…, K, N] per output channel along its last axis; with two activations
// (attention's Q·Kᵀ and P·V) FP32 unless --quantize-bmm, then both per tensor.
#include "engine/passes/graph_constants.h"
#include "quant/rules/rule.h"

namespace q8 {

NodeMark mark_matmul(const Node& node, const MarkContext& ctx) {
  if (node.inputs.size() < 2) return {{}, false, "it has fewer than two inputs"};
  if (ctx.is_constant(node.inputs[0])) return {{}, false, kKnownA};
  const Tensor* b = ctx.index.constant(node.inputs[1]);
  if (!b && ctx.is_constant(node.inputs[1])) return {{}, false, kShapeB};
  if (!b && !ctx.options.quantize_bmm) return {{}, false, kBmmReason};
  if (!b) return {{{0, false, std::nullopt, 1}, {1, false, std::nullopt, 1}}, false, ""};
  if (b->rank() < 2) return {{}, false, "its constant B is 1-D"};
  return {{{0, false, std::nullopt, 1}, ctx.weight_need(node, *b)}, false, ""};
}

}  // namespace q8
