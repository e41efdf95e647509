// Sigmoid: y = 1 / (1 + e^-x) (q8_exp: the same bits on the OpenCL backend)
#include "engine/ops/elementwise.h"
#include "engine/ops/exp_float.h"

namespace q8 {

std::unique_ptr<Op> create_sigmoid(const Node&, const OpContext&) {
  return make_unary("Sigmoid", [](float x) { return 1.0f / (1.0f + q8_exp(-x)); });
}

}  // namespace q8
