// Neg: y = −x, in x's type (float32, float16, signed integers).
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_neg(const Node&, const OpContext&) {
  return make_unary_numeric("Neg", [](auto x) -> decltype(x) { return decltype(x)(-x); });
}

}  // namespace q8
