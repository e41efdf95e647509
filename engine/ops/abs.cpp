// Abs: y = |x|
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_abs(const Node&, const OpContext&) {
  return make_unary("Abs", [](float x) { return std::fabs(x); });
}

}  // namespace q8
