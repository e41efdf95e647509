// Sub: C = A - B, with numpy broadcasting.
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_sub(const Node&, const OpContext&) {
  return make_binary("Sub", [](auto a, auto b) { return a - b; });
}

}  // namespace q8
