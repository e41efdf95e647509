// binary.cl's broadcast layout, which qadd.cl reads too: the output's dims, then a's and b's
// strides, over Q8_BROADCAST_AXES axes aligned to the right (0 along broadcast axes).
#pragma once

#include <string>

#include "engine/ir/tensor.h"

namespace q8 {

Tensor broadcast_layout(const Dims& out, const Dims& a, const Dims& b, const std::string& name);

}  // namespace q8
