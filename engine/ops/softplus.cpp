// Softplus: y = ln(1 + eˣ), written x + ln(1 + e⁻ˣ) for x > 0 so that it never overflows.
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_softplus(const Node&, const OpContext&) {
  return make_unary("Softplus", [](float x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); });
}

}  // namespace q8
