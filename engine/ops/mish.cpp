// Mish: y = x · tanh(softplus(x)), softplus(x) = ln(1 + eˣ) written so that it never overflows
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_mish(const Node&, const OpContext&) {
  return make_unary("Mish", [](float x) { return x * std::tanh(x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x))); });
}

}  // namespace q8
