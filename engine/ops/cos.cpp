// Cos: y = cos(x)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_cos(const Node&, const OpContext&) {
  return make_unary("Cos", [](float x) { return std::cos(x); });
}

}  // namespace q8
