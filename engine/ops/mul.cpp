// Mul: C = A · B, with numpy broadcasting.
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_mul(const Node&, const OpContext&) {
  return make_binary("Mul", [](auto a, auto b) { return a * b; });
}

}  // namespace q8
