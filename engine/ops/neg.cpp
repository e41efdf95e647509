// Neg: y = -x
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_neg(const Node&, const OpContext&) {
  return make_unary("Neg", [](float x) { return -x; });
}

}  // namespace q8
