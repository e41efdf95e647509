// Sum: the elementwise sum of all inputs, with numpy broadcasting.
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_sum(const Node&, const OpContext&) {
  return make_variadic("Sum", [](auto a, auto b) { return a + b; });
}

}  // namespace q8
