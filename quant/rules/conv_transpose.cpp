// ConvTranspose: input per tensor; weight W[C, M/g, k…] per output channel along axis 1 — never
// axis 0 — with output channel o = gi·(M/g) + j; bias FP32. The export writes M/g scales on
// axis 1 (the max over groups when g > 1, with a warning); docs/quantization.md.
#include "quant/rules/rule.h"

namespace q8 {

NodeMark mark_conv_transpose(const Node& node, const MarkContext& ctx) {
  if (node.inputs.size() < 2 || !ctx.is_constant(node.inputs[1])) return {{}, false, "its weight is not constant"};
  InputNeed weight{1, true, ctx.options.per_tensor_weights ? std::nullopt : std::optional<int64_t>(1), node.attr_int("group", 1)};
  return {{{0, false, std::nullopt, 1}, weight}, false, ""};
}

}  // namespace q8
