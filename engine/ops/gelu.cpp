// Gelu: y = x/2 · (1 + erf(x/√2)); approximate="tanh": x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³))),
// as q8_gelu and q8_gelu_tanh compute them (kernels/gelu.cl, the INT8 epilogue's functions); the erf
// form 8 at a time with AVX2.
#include "engine/cpu/unary_wide.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/gelu_float.h"

namespace q8 {

std::unique_ptr<Op> create_gelu(const Node& node, const OpContext&) {
  const std::string approximate = node.attr_string("approximate", "none");
  if (approximate == "tanh") return make_unary("Gelu", [](float x) { return q8_gelu_tanh(x); });
  check(approximate == "none", node.describe() + ": approximate='" + approximate + "' is not 'none' or 'tanh'");
  return make_unary("Gelu", [](float x) { return q8_gelu(x); }, wide_or_null(gelu_avx512, gelu_avx2));
}

}  // namespace q8
