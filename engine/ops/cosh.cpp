// Cosh: y = cosh(x)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_cosh(const Node&, const OpContext&) {
  return make_unary("Cosh", [](float x) { return std::cosh(x); });
}

}  // namespace q8
