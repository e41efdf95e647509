// Log: y = ln(x)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_log(const Node&, const OpContext&) {
  return make_unary("Log", [](float x) { return std::log(x); });
}

}  // namespace q8
