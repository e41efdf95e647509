// Asinh: y = arsinh(x)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_asinh(const Node&, const OpContext&) {
  return make_unary("Asinh", [](float x) { return std::asinh(x); });
}

}  // namespace q8
