// q8_erf, q8_tanh, q8_gelu and q8_gelu_tanh: float32 with the same bits on the host and on OpenCL
// devices, for GELU in a weighted op's epilogue. Their one source is kernels/gelu.cl, which the
// OpenCL program also holds.
#pragma once

#include "engine/ops/exp_float.h"

namespace q8 {

#include "kernels/gelu.cl"

}  // namespace q8
