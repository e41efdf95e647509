// LeakyRelu: y = x if x >= 0 else alpha · x; alpha 0.01 by default.
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_leaky_relu(const Node& node, const OpContext&) {
  const float alpha = node.attr_float("alpha", 0.01f);
  return make_unary("LeakyRelu", [alpha](float x) { return x >= 0.0f ? x : alpha * x; });
}

}  // namespace q8
