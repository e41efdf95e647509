// Selu: y = gamma · x for x > 0, gamma · alpha · (eˣ − 1) below (ONNX's defaults: alpha 1.67326, gamma 1.0507)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_selu(const Node& node, const OpContext&) {
  const float alpha = node.attr_float("alpha", 1.67326319217681884765625f), gamma = node.attr_float("gamma", 1.05070102214813232421875f);
  return make_unary("Selu", [alpha, gamma](float x) { return x > 0 ? gamma * x : gamma * alpha * std::expm1(x); });
}

}  // namespace q8
