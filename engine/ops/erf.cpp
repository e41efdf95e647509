// Erf: y = q8_erf(x) (kernels/gelu.cl: Cephes' erff, within 3 ulp; the function the INT8 epilogue's
// GELU uses, 8 at a time with AVX2).
#include "engine/cpu/unary_wide.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/gelu_float.h"

namespace q8 {

std::unique_ptr<Op> create_erf(const Node&, const OpContext&) {
  return make_unary("Erf", [](float x) { return q8_erf(x); }, wide_or_null(erf_avx512, erf_avx2));
}

}  // namespace q8
