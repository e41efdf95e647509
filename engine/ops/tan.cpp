// Tan: y = tan(x)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_tan(const Node&, const OpContext&) {
  return make_unary("Tan", [](float x) { return std::tan(x); });
}

}  // namespace q8
