// Add: C = A + B, with numpy broadcasting.
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_add(const Node&, const OpContext&) {
  return make_binary("Add", [](auto a, auto b) { return a + b; });
}

}  // namespace q8
