// binary.cl's broadcast layout, which qadd.cl reads too: the output's dims, then a's and b's
// strides, over Q8_BROADCAST_AXES axes aligned to the right (0 along broadcast axes). Neighbouring
// axes are merged where each operand either runs through both contiguously or is broadcast along
// both ([N, C, H, W] · [N, C, 1, 1] walks two axes, N · C and H · W), and axes of size 1 dropped:
// every output element still reads the same two elements.
#pragma once

#include <string>

#include "engine/ir/tensor.h"

namespace q8 {

Tensor broadcast_layout(const Dims& out, const Dims& a, const Dims& b, const std::string& name);

}  // namespace q8
