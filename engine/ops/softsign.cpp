// Softsign: y = x / (1 + |x|)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_softsign(const Node&, const OpContext&) {
  return make_unary("Softsign", [](float x) { return x / (1.0f + std::fabs(x)); });
}

}  // namespace q8
