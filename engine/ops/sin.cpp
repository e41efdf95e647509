// Sin: y = sin(x)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_sin(const Node&, const OpContext&) {
  return make_unary("Sin", [](float x) { return std::sin(x); });
}

}  // namespace q8
