// Elu: y = x for x ≥ 0, alpha · (eˣ − 1) below (alpha 1 by default)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_elu(const Node& node, const OpContext&) {
  const float alpha = node.attr_float("alpha", 1.0f);
  return make_unary("Elu", [alpha](float x) { return x >= 0 ? x : alpha * std::expm1(x); });
}

}  // namespace q8
