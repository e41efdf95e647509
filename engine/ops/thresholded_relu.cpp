// ThresholdedRelu: y = x for x > alpha, else 0 (alpha 1 by default)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_thresholded_relu(const Node& node, const OpContext&) {
  const float alpha = node.attr_float("alpha", 1.0f);
  return make_unary("ThresholdedRelu", [alpha](float x) { return x > alpha ? x : 0.0f; });
}

}  // namespace q8
