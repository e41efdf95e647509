// Round: y = x rounded to the nearest integer, halves to even (ONNX Round, as numpy.round).
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_round(const Node&, const OpContext&) {
  return make_unary("Round", [](float x) {
    const float r = std::round(x);  // halves away from zero
    return std::fabs(x - std::trunc(x)) == 0.5f ? 2.0f * std::round(x / 2.0f) : r;
  });
}

}  // namespace q8
