// Exp: y = e^x
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_exp(const Node&, const OpContext&) {
  return make_unary("Exp", [](float x) { return std::exp(x); });
}

}  // namespace q8
