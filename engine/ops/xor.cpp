// Xor: C = A != B elementwise on bool tensors, with numpy broadcasting.
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_xor(const Node&, const OpContext&) {
  return make_logical("Xor", [](bool a, bool b) { return a != b; });
}

}  // namespace q8
