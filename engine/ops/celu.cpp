// Celu: y = max(0, x) + min(0, alpha · (e^(x / alpha) − 1)) (alpha 1 by default)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_celu(const Node& node, const OpContext&) {
  const float alpha = node.attr_float("alpha", 1.0f);
  return make_unary("Celu", [alpha](float x) { return std::max(0.0f, x) + std::min(0.0f, alpha * std::expm1(x / alpha)); });
}

}  // namespace q8
