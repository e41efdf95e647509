// MatMul: a constant B[…, K, N] per output channel along its last axis; with two activations
// (attention's Q·Kᵀ and P·V) FP32 unless --quantize-bmm, then both per tensor.
#include "quant/graph_constants.h"
#include "quant/rules/rule.h"

namespace q8 {

NodeMark mark_matmul(const Node& node, const MarkContext& ctx) {
  if (node.inputs.size() < 2) return {{}, false, "it has fewer than two inputs"};
  const Tensor* b = find_constant(ctx.graph, node.inputs[1]);
  if (!b && !ctx.options.quantize_bmm) return {{}, false, kBmmReason};
  if (!b) return {{{0, false, std::nullopt, 1}, {1, false, std::nullopt, 1}}, false, ""};
  if (b->rank() < 2) return {{}, false, "its constant B is 1-D"};
  const int64_t axis = int64_t(b->rank()) - 1;
  InputNeed weight{1, true, ctx.options.per_tensor_weights ? std::nullopt : std::optional<int64_t>(axis), 1};
  return {{{0, false, std::nullopt, 1}, weight}, false, ""};
}

}  // namespace q8
