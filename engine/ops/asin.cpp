// Asin: y = arcsin(x)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_asin(const Node&, const OpContext&) {
  return make_unary("Asin", [](float x) { return std::asin(x); });
}

}  // namespace q8
