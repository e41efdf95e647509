// Gemm: A per tensor (transA only changes which axis is K); a constant B per output channel
// along axis 0 if transB, else axis 1; C FP32. A non-constant B: FP32 unless --quantize-bmm,
// then an activation, per tensor.
#include "quant/rules/rule.h"

namespace q8 {

NodeMark mark_gemm(const Node& node, const MarkContext& ctx) {
  if (node.inputs.size() < 2) return {{}, false, "it has no B"};
  if (!ctx.is_constant(node.inputs[1]) && !ctx.options.quantize_bmm) return {{}, false, kBmmReason};
  if (!ctx.is_constant(node.inputs[1])) return {{{0, false, std::nullopt, 1}, {1, false, std::nullopt, 1}}, false, ""};
  const int64_t axis = node.attr_int("transB", 0) ? 0 : 1;
  InputNeed weight{1, true, ctx.options.per_tensor_weights ? std::nullopt : std::optional<int64_t>(axis), 1};
  return {{{0, false, std::nullopt, 1}, weight}, false, ""};
}

}  // namespace q8
