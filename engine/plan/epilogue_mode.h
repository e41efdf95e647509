// The epilogue mode (kernels/abi.h) a fused weighted op (QConv, QConvTranspose, QGemm) names with
// its `activation`, `approximate` and `y_scale` attributes (docs/quantization.md, "Activations in
// the epilogue"): one reading for the INT8 reference and the OpenCL backend.
#pragma once

#include "engine/ir/node.h"

namespace q8 {

// The activations: "Gelu" (approximate "none" or "tanh"), "Swish", "HardSwish", "Sigmoid".
// Q8_FLOAT_OUT_* or, with y_scale > 0, Q8_INT8_OUT_* of the node's activation; -1 without one.
// An Error naming the node for an unknown activation or approximate, or a y_scale that is not a
// positive finite value.
int epilogue_mode(const Node& node);

}  // namespace q8
