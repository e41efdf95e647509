// Max: the elementwise maximum of all inputs, with numpy broadcasting. NaN propagates.
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_max(const Node&, const OpContext&) {
  return make_variadic("Max", [](auto a, auto b) { return (a != a || a > b) ? a : b; });
}

}  // namespace q8
