// Acosh: y = arcosh(x)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_acosh(const Node&, const OpContext&) {
  return make_unary("Acosh", [](float x) { return std::acosh(x); });
}

}  // namespace q8
