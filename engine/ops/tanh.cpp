// Tanh: y = tanh(x)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_tanh(const Node&, const OpContext&) {
  return make_unary("Tanh", [](float x) { return std::tanh(x); });
}

}  // namespace q8
