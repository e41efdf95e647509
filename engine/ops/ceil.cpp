// Ceil: y = ⌈x⌉
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_ceil(const Node&, const OpContext&) {
  return make_unary("Ceil", [](float x) { return std::ceil(x); });
}

}  // namespace q8
