// HardSwish: y = x · max(0, min(1, x/6 + 1/2)), q8_hard_swish: the function a weighted op's
// epilogue applies too (kernels/epilogue_activation.cl).
#include "engine/ops/elementwise.h"
#include "engine/ops/epilogue_activation.h"

namespace q8 {

std::unique_ptr<Op> create_hard_swish(const Node&, const OpContext&) {
  return make_unary("HardSwish", [](float x) { return q8_hard_swish(x); });
}

}  // namespace q8
