// Acos: y = arccos(x)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_acos(const Node&, const OpContext&) {
  return make_unary("Acos", [](float x) { return std::acos(x); });
}

}  // namespace q8
