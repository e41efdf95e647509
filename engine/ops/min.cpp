// Min: the elementwise minimum of all inputs, with numpy broadcasting. NaN propagates.
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_min(const Node&, const OpContext&) {
  return make_variadic("Min", [](auto a, auto b) { return (a != a || a < b) ? a : b; });
}

}  // namespace q8
