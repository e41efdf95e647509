// q8_epilogue_activation and q8_int8_after_activation: the activations a weighted op's epilogue
// applies (GELU, Swish, HardSwish, Sigmoid), float32 with the same bits on the host and on OpenCL
// devices. Their one source is kernels/epilogue_activation.cl, which the OpenCL program also holds.
#pragma once

#include "engine/ops/gelu_float.h"
#include "kernels/abi.h"

namespace q8 {

#include "kernels/epilogue_activation.cl"

}  // namespace q8
