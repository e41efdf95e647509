// HardSwish: y = x · max(0, min(1, x/6 + 1/2)), q8_hard_swish: the function a weighted op's
// epilogue applies too (kernels/epilogue_activation.cl); 8 values at a time with AVX2.
#include "engine/cpu/unary_wide.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/epilogue_activation.h"

namespace q8 {

std::unique_ptr<Op> create_hard_swish(const Node&, const OpContext&) {
  return make_unary("HardSwish", [](float x) { return q8_hard_swish(x); }, wide_or_null(nullptr, hard_swish_avx2));
}

}  // namespace q8
