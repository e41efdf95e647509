// Conv: input per tensor; weight W[M, C/g, k…] per output channel along axis 0; bias FP32.
#include "quant/rules/rule.h"

namespace q8 {

NodeMark mark_conv(const Node& node, const MarkContext& ctx) {
  if (node.inputs.size() < 2 || !ctx.is_constant(node.inputs[1])) return {{}, false, "its weight is not constant"};
  InputNeed weight{1, true, ctx.options.per_tensor_weights ? std::nullopt : std::optional<int64_t>(0), 1};
  return {{{0, false, std::nullopt, 1}, weight}, false, ""};
}

}  // namespace q8
