// Sigmoid: y = 1 / (1 + e^-x)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_sigmoid(const Node&, const OpContext&) {
  return make_unary("Sigmoid", [](float x) { return 1.0f / (1.0f + std::exp(-x)); });
}

}  // namespace q8
