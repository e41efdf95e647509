// Sinh: y = sinh(x)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_sinh(const Node&, const OpContext&) {
  return make_unary("Sinh", [](float x) { return std::sinh(x); });
}

}  // namespace q8
