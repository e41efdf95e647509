// Scale carriers: ops that commute with QuantizeLinear (engine/ops/traits.h: they select, move or
// copy input 0's values and keep zeros zeros) give their output input 0's scale, so a quantized
// consumer reads the producer's scale; Concat gives its inputs one shared scale.
#include "engine/ops/traits.h"
#include "engine/passes/graph_constants.h"
#include "quant/rules/rule.h"

namespace q8 {

NodeMark mark_scale_carrier(const Node& node, const MarkContext& ctx) {
  std::string why;
  if (!commutes_with_quantize(node, ctx.index, why)) return {{}, false, why};
  return {{}, true, ""};
}

// Concat carries one scale shared by every input (the largest of theirs).
NodeMark mark_concat(const Node&, const MarkContext&) { return {{}, true, ""}; }

}  // namespace q8
