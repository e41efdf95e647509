// IsNaN: Y = isnan(X), bool, for float32 and float16.
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_is_nan(const Node&, const OpContext&) {
  return make_float_predicate("IsNaN", [](float x) { return std::isnan(x); });
}

}  // namespace q8
