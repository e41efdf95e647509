// Mul → Q, a float Mul whose output only a per-tensor int8 QuantizeLinear reads (a
// squeeze-excitation gate before the block's projection conv), becomes one MulQuantize
// (docs/quantization.md, "A float Mul and its Q"): the product is never stored as float.
#include "engine/plan/rules/rule.h"

namespace q8 {

// Silent where it does not apply: the Mul then stays FP32 for its traits' reason.
std::optional<Fusion> lower_mul_quantize(const QdqGraph& g, int anchor, std::string&) {
  const Node& mul = g.node(anchor);
  if (mul.inputs.size() != 2 || mul.outputs.size() != 1) return std::nullopt;  // float: a QuantizeLinear reads it
  QuantParams y;
  const int q = sole_per_tensor_quantize(g, mul.outputs[0], y);
  if (q < 0) return std::nullopt;
  Fusion f;
  f.fused.name = mul.name;
  f.fused.domain = kInt8Domain;
  f.fused.op_type = "MulQuantize";
  f.fused.inputs = mul.inputs;
  f.fused.outputs = g.node(q).outputs;
  f.fused.attributes = {{"y_scale", Attribute::of_float(y.scale())}};
  f.consumed = {anchor, q};
  return f;
}

}  // namespace q8
