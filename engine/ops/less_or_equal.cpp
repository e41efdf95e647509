// LessOrEqual: C = (A <= B) elementwise, bool, with numpy broadcasting.
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_less_or_equal(const Node&, const OpContext&) {
  return make_compare("LessOrEqual", [](auto a, auto b) { return a <= b; });
}

}  // namespace q8
