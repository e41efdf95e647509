// Abs: y = |x|, in x's type (float32, float16, integers).
#include <type_traits>

#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_abs(const Node&, const OpContext&) {
  return make_unary_numeric("Abs", [](auto x) -> decltype(x) {
    if constexpr (std::is_floating_point_v<decltype(x)>) return std::fabs(x);
    else return x < 0 ? decltype(x)(-x) : x;
  });
}

}  // namespace q8
