// DQ(a), DQ(b) → Add [→ Relu/Clip…] → Q  becomes one QAdd (docs/quantization.md, "Standalone INT8
// Add"): A = s_a / s_z, B = s_b / s_z. A residual Add right after a weighted op is fused into that
// op instead (weighted.cpp), which runs first.
#include "engine/plan/reference/backend.h"
#include "engine/plan/rules/rule.h"

namespace q8 {

std::optional<Fusion> lower_add(const QdqGraph& g, int anchor, std::string& why) {
  const Node& add = g.node(anchor);
  if (add.inputs.size() != 2 || add.outputs.size() != 1) {
    why = "it does not have two inputs and one output";
    return std::nullopt;
  }
  QuantParams a, b, z;
  const int da = g.per_tensor_dequantize(add.inputs[0], a, why);
  if (da < 0) return std::nullopt;
  const int db = g.per_tensor_dequantize(add.inputs[1], b, why);
  if (db < 0) return std::nullopt;
  const ActivationChain acts = follow_activations(g, add.outputs[0]);
  Fusion f;
  if (!end_at_quantize(g, acts.output, f, z)) {
    why = "its output is not quantized per tensor to int8";
    return std::nullopt;
  }
  const float ra = scale_ratio(a.scale(), z.scale()), rb = scale_ratio(b.scale(), z.scale());
  // Ratios outside the requantization's range (an additive mask of −3.4e38 beside scores of
  // a few units): the Add stays FP32 between its DQs rather than failing the build.
  try {
    check_multiplier(ra, "A", "s_a = " + std::to_string(a.scale()) + ", s_z = " + std::to_string(z.scale()));
    check_multiplier(rb, "B", "s_b = " + std::to_string(b.scale()) + ", s_z = " + std::to_string(z.scale()));
  } catch (const Error& e) {
    why = e.what();
    return std::nullopt;
  }
  const ClampBounds bounds = acts.bounds(g, z.scale());
  f.fused.name = add.name;
  f.fused.domain = kInt8Domain;
  f.fused.op_type = "QAdd";
  f.fused.inputs = {g.node(da).inputs[0], g.node(db).inputs[0]};
  f.fused.attributes = {{"a_scale", Attribute::of_float(ra)}, {"b_scale", Attribute::of_float(rb)},
                        {"lo", Attribute::of_int(bounds.lo)}, {"hi", Attribute::of_int(bounds.hi)}};
  f.consumed.push_back(anchor);
  f.consumed.insert(f.consumed.end(), acts.nodes.begin(), acts.nodes.end());
  return f;
}

}  // namespace q8
