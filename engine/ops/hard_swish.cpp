// HardSwish: y = x · max(0, min(1, x/6 + 1/2))
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_hard_swish(const Node&, const OpContext&) {
  return make_unary("HardSwish", [](float x) { return x * std::max(0.0f, std::min(1.0f, x / 6.0f + 0.5f)); });
}

}  // namespace q8
