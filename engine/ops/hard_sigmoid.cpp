// HardSigmoid: y = max(0, min(1, alpha · x + beta)); alpha 0.2, beta 0.5 by default.
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_hard_sigmoid(const Node& node, const OpContext&) {
  const float alpha = node.attr_float("alpha", 0.2f), beta = node.attr_float("beta", 0.5f);
  return make_unary("HardSigmoid", [alpha, beta](float x) { return std::max(0.0f, std::min(1.0f, alpha * x + beta)); });
}

}  // namespace q8
