// q8_exp: e^x in float32 with the same bits on the host and on OpenCL devices. Its one source is
// kernels/exp.cl, which the OpenCL program also holds.
#pragma once

#include <bit>
#include <cmath>

namespace q8 {

#include "kernels/exp.cl"

}  // namespace q8
