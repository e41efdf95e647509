// Div: C = A / B (integer division truncates), with numpy broadcasting.
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_div(const Node&, const OpContext&) {
  return make_binary("Div", [](auto a, auto b) { return a / b; });
}

}  // namespace q8
