// Relu: y = max(x, 0)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_relu(const Node&, const OpContext&) {
  return make_unary("Relu", [](float x) { return x > 0.0f ? x : 0.0f; });
}

}  // namespace q8
