// DQ(x, s) → op → Q(s), for an op that commutes with quantization (engine/ops/traits.h: MaxPool,
// the reshaping ops, Slice, nearest Resize, zero Pad, Relu…), with scales bit-equal: the op runs on
// the int8 values directly, as TensorRT and ONNX Runtime move Q/DQ across it. Exact: these ops
// only select, reorder or copy values and keep zeros zeros.
#include <cstring>

#include "engine/plan/rules/rule.h"

namespace q8 {

std::optional<Fusion> lower_carrier(const QdqGraph& g, int anchor, std::string& why) {
  const Node& op = g.node(anchor);
  if (!carrier_on_int8(g, op, why)) return std::nullopt;
  QuantParams in, out;
  const int d = g.per_tensor_dequantize(op.inputs[0], in, why);
  if (d < 0) return std::nullopt;
  const int q = sole_per_tensor_quantize(g, op.outputs[0], out);
  if (q < 0) {
    why = "its output is not quantized per tensor to int8";
    return std::nullopt;
  }
  const float s_in = in.scale(), s_out = out.scale();
  if (std::memcmp(&s_in, &s_out, sizeof(float)) != 0) {
    why = "its input and output scales differ";
    return std::nullopt;
  }
  Fusion f;
  f.fused = on_int8(op);
  f.fused.inputs[0] = g.node(d).inputs[0];
  f.fused.outputs = {g.node(q).outputs[0]};
  f.consumed = {anchor, q};
  return f;
}

}  // namespace q8
