// DQ(a), DQ(b) → MatMul of two activations [→ Relu/Clip] [→ carriers → Q] becomes one QMatMul,
// int8 out where a Q ends it, FP32 out where none does (docs/quantization.md, "Batched MatMul of
// two activations"): attention's Q·Kᵀ and P·V under --quantize-bmm.
#include "engine/plan/rules/rule.h"

namespace q8 {

namespace {

// The rank the model declares for value, or -1.
int declared_rank(const QdqGraph& g, const std::string& value) {
  const ValueInfo* v = g.graph().declared(value);
  return v && v->shape ? int(v->shape->size()) : -1;
}

}  // namespace

std::optional<Fusion> lower_batched_matmul(const QdqGraph& g, int anchor, std::string& why) {
  const Node& op = g.node(anchor);
  if (op.inputs.size() != 2 || op.outputs.size() != 1) return std::nullopt;
  const int pa = g.producer(op.inputs[0]), pb = g.producer(op.inputs[1]);
  if (pb < 0 || g.node(pb).op_type != "DequantizeLinear" || g.constant(g.node(pb).inputs[0])) return std::nullopt;  // a weight: the FC rule's
  if (pa < 0 || g.node(pa).op_type != "DequantizeLinear") return std::nullopt;
  if (const int q = g.producer(g.node(pb).inputs[0]); q >= 0 && g.node(q).op_type == "QuantizeLinear" && g.constant(g.node(q).inputs[0]))
    return std::nullopt;  // an FP32 weight quantized in the graph: the FC rule's
  QuantParams a, b;
  if (g.per_tensor_dequantize(op.inputs[0], a, why) < 0 || g.per_tensor_dequantize(op.inputs[1], b, why) < 0) return std::nullopt;
  for (const std::string& in : {g.node(pa).inputs[0], g.node(pb).inputs[0]}) {
    const int rank = declared_rank(g, in);
    if (rank >= 0 && rank < 2) {
      why = "an operand of rank " + std::to_string(rank) + " has no INT8 batched MatMul (ranks >= 2)";
      return std::nullopt;
    }
  }
  Fusion f;
  f.fused = op;
  f.fused.domain = kInt8Domain;
  f.fused.op_type = "QMatMul";
  f.fused.inputs = {g.node(pa).inputs[0], g.node(pb).inputs[0]};
  f.consumed = {anchor};
  const ActivationChain chain = follow_activations(g, op.outputs[0]);
  const float s = a.scale() * b.scale();  // S = (float)(s_a · s_b)
  QuantParams y;
  if (end_at_quantize(g, chain.output, f, y)) {
    const float m = requant_multiplier(a.scale(), b.scale(), y.scale());
    check_multiplier(m, "M", "s_a = " + std::to_string(a.scale()) + ", s_b = " + std::to_string(b.scale()) + ", s_y = " + std::to_string(y.scale()));
    f.fused.attributes["multiplier"] = Attribute::of_float(m);
    const ClampBounds bounds = chain.bounds(g, y.scale());
    f.fused.attributes["lo"] = Attribute::of_int(bounds.lo);
    f.fused.attributes["hi"] = Attribute::of_int(bounds.hi);
    f.consumed.insert(f.consumed.end(), chain.nodes.begin(), chain.nodes.end());
  } else {
    f.fused.attributes["scale"] = Attribute::of_float(s);
  }
  return f;
}

}  // namespace q8
