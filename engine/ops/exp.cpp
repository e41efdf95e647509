// Exp: y = e^x (q8_exp: the same bits on the OpenCL backend, and in its AVX-512 and AVX2 forms)
#include "engine/cpu/unary_wide.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/exp_float.h"

namespace q8 {

std::unique_ptr<Op> create_exp(const Node&, const OpContext&) {
  return make_unary("Exp", [](float x) { return q8_exp(x); }, wide_or_null(exp_avx512, exp_avx2));
}

}  // namespace q8
