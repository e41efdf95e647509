// Shrink: y = x − bias for x > lambd, x + bias for x < −lambd, else 0 (lambd 0.5, bias 0 by default)
#include "engine/ops/elementwise.h"

namespace q8 {

std::unique_ptr<Op> create_shrink(const Node& node, const OpContext&) {
  const float lambd = node.attr_float("lambd", 0.5f), bias = node.attr_float("bias", 0.0f);
  return make_unary("Shrink", [lambd, bias](float x) { return x > lambd ? x - bias : x < -lambd ? x + bias : 0.0f; });
}

}  // namespace q8
