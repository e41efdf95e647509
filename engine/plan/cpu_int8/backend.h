// The CPU INT8 backend: the weighted q8 ops on oneDNN's int8 primitives (exact int32 sums on
// every instruction set, engine/cpu/int8_primitive.h), each sum then finished by the integer
// reference's own epilogue, so every byte is the reference's (docs/cpu.md, "INT8").
#pragma once

#include "engine/exec/backend.h"

namespace q8 {

const Backend& cpu_int8_backend();

}  // namespace q8
