// The INT8 reference backend: the fused integer ops of the q8 domain (ops.inc), as plain loops
// that follow docs/quantization.md line by line. It is the oracle every device matches bit for bit.
#pragma once

#include "engine/exec/backend.h"

namespace q8 {

const Backend& int8_reference_backend();

}  // namespace q8
