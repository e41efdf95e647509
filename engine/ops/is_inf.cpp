// IsInf: Y = X is +Inf (when detect_positive, default 1) or −Inf (when detect_negative, default 1).
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_is_inf(const Node& node, const OpContext&) {
  const bool positive = node.attr_int("detect_positive", 1) != 0, negative = node.attr_int("detect_negative", 1) != 0;
  return make_float_predicate("IsInf", [=](float x) { return std::isinf(x) && (x > 0 ? positive : negative); });
}

}  // namespace q8
