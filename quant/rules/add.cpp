// Add: both inputs per tensor, so the add can run in INT8. AddMode::TensorRT leaves the input
// coming from a Conv/ConvTranspose branch unquantized (as NVIDIA ModelOpt does), so TensorRT can
// fuse Conv+Add; the other input is quantized.
#include "quant/rules/rule.h"

namespace q8 {

NodeMark mark_add(const Node& node, const MarkContext& ctx) {
  if (node.inputs.size() != 2) return {{}, false, "it does not have two inputs"};
  std::vector<InputNeed> needs;
  for (size_t i = 0; i < 2; ++i) {
    // An Add of a constant (or of a value known without the data) is a bias: nothing to quantize,
    // and after a MatMul the lowering folds it into the fused op (docs/quantization.md, "Linear").
    if (ctx.is_constant(node.inputs[i])) return {{}, false, "it adds a constant (a bias)"};
    if (!ctx.is_float(node.inputs[i])) return {{}, false, "it adds integers (shape arithmetic)"};
    needs.push_back({i, false, std::nullopt, 1});
  }
  if (needs.size() == 2 && ctx.options.add_mode == AddMode::TensorRT) {
    const auto from_conv = [&](size_t i) {
      const std::string op = ctx.producer_op(node.inputs[i]);
      return op == "Conv" || op == "ConvTranspose";
    };
    // Keep the conv branch FP32: drop the first input that comes straight from a convolution.
    for (size_t k = 0; k < 2; ++k)
      if (from_conv(needs[k].input)) {
        needs.erase(needs.begin() + long(k));
        break;
      }
  }
  return {needs, false, ""};
}

}  // namespace q8
