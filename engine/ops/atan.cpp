// Atan: y = arctan(x)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_atan(const Node&, const OpContext&) {
  return make_unary("Atan", [](float x) { return std::atan(x); });
}

}  // namespace q8
