// Sigmoid: y = 1 / (1 + e^-x) (q8_exp: the same bits on the OpenCL backend, and in its AVX-512 and AVX2 forms)
#include "engine/cpu/unary_wide.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/exp_float.h"

namespace q8 {

std::unique_ptr<Op> create_sigmoid(const Node&, const OpContext&) {
  return make_unary("Sigmoid", [](float x) { return q8_sigmoid(x); }, wide_or_null(sigmoid_avx512, sigmoid_avx2));
}

}  // namespace q8
