// Sqrt: y = sqrt(x)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_sqrt(const Node&, const OpContext&) {
  return make_unary("Sqrt", [](float x) { return std::sqrt(x); });
}

}  // namespace q8
