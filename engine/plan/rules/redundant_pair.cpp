// DQ(x, s) → Q(s) with bit-equal scales is the identity on x: both are dropped (the Q's readers
// read x). Anchored at the QuantizeLinear.
#include <cstring>

#include "engine/plan/rules/rule.h"

namespace q8 {

std::optional<Fusion> lower_redundant_pair(const QdqGraph& g, int anchor, std::string& why) {
  const Node& q = g.node(anchor);
  QuantParams in;
  std::string ignore;
  const int d = q.inputs.empty() ? -1 : g.per_tensor_dequantize(q.inputs[0], in, ignore);
  if (d < 0) return std::nullopt;  // a Q of an FP32 value: it stays (why stays empty)
  const std::optional<QuantParams> out = g.params(q, why);
  if (!out) return std::nullopt;
  const float s_in = in.scale();
  if (!out->per_tensor() || std::memcmp(&s_in, &out->scales[0], sizeof(float)) != 0) {
    why = "it requantizes to a different scale";
    return std::nullopt;
  }
  Fusion f;
  f.fused.name = q.name;
  f.fused.op_type = "Identity";
  f.fused.inputs = {g.node(d).inputs[0]};
  f.fused.outputs = q.outputs;
  f.consumed = {anchor};
  return f;
}

}  // namespace q8
