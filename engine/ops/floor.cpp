// Floor: y = ⌊x⌋
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_floor(const Node&, const OpContext&) {
  return make_unary("Floor", [](float x) { return std::floor(x); });
}

}  // namespace q8
