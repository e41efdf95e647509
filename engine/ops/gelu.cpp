// Gelu: y = x/2 · (1 + erf(x/√2)); approximate="tanh": x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³))).
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_gelu(const Node& node, const OpContext&) {
  const std::string approximate = node.attr_string("approximate", "none");
  if (approximate == "tanh") {
    return make_unary("Gelu", [](float x) {
      const float k = 0.7978845608028654f;  // √(2/π)
      return 0.5f * x * (1.0f + std::tanh(k * (x + 0.044715f * x * x * x)));
    });
  }
  check(approximate == "none", node.describe() + ": approximate='" + approximate + "' is not 'none' or 'tanh'");
  return make_unary("Gelu", [](float x) { return 0.5f * x * (1.0f + std::erf(x * 0.7071067811865476f)); });
}

}  // namespace q8
