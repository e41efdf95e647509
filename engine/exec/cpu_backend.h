// The CPU backend: every op in the registry (engine/ops/ops.inc), FP32 and the integer types
// each op takes, behind the backend interface (engine/exec/backend.h).
#pragma once

#include "engine/exec/backend.h"

namespace q8 {

const Backend& cpu_backend();

}  // namespace q8
