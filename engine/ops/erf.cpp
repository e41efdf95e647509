// Erf: y = erf(x)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_erf(const Node&, const OpContext&) {
  return make_unary("Erf", [](float x) { return std::erf(x); });
}

}  // namespace q8
