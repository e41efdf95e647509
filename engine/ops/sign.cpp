// Sign: y = 1 for x > 0, −1 for x < 0, 0 for 0 (NaN stays NaN), in x's type.
#include <type_traits>

#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_sign(const Node&, const OpContext&) {
  return make_unary_numeric("Sign", [](auto x) -> decltype(x) {
    if constexpr (std::is_floating_point_v<decltype(x)>)
      if (std::isnan(x)) return x;
    return x > 0 ? 1 : x < 0 ? -1 : 0;
  });
}

}  // namespace q8
