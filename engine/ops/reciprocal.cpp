// Reciprocal: y = 1 / x
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_reciprocal(const Node&, const OpContext&) {
  return make_unary("Reciprocal", [](float x) { return 1.0f / x; });
}

}  // namespace q8
