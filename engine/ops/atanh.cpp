// Atanh: y = artanh(x)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_atanh(const Node&, const OpContext&) {
  return make_unary("Atanh", [](float x) { return std::atanh(x); });
}

}  // namespace q8
