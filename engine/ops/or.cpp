// Or: C = A || B elementwise on bool tensors, with numpy broadcasting.
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_or(const Node&, const OpContext&) {
  return make_logical("Or", [](bool a, bool b) { return a || b; });
}

}  // namespace q8
