// Sigmoid: y = 1 / (1 + e^-x) (q8_exp: the same bits on the OpenCL backend, and in its AVX-512 form)
#include "engine/cpu/exp_avx512.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/exp_float.h"

namespace q8 {

std::unique_ptr<Op> create_sigmoid(const Node&, const OpContext&) {
  return make_unary("Sigmoid", [](float x) { return q8_sigmoid(x); }, wide_or_null(sigmoid_avx512));
}

}  // namespace q8
