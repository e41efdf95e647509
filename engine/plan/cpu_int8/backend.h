// The CPU INT8 backend: the weighted q8 ops on oneDNN's int8 primitives (exact int32 sums), each
// sum then finished by the integer reference's own epilogue, so every byte is the reference's
// (docs/cpu.md, "INT8"). Where oneDNN's sums are not exact (no VNNI or AMX, or
// ONEDNN_MAX_CPU_ISA below them) it declines every node and the reference runs them.
#pragma once

#include "engine/exec/backend.h"

namespace q8 {

const Backend& cpu_int8_backend();

// The reason cpu_int8_backend() declines where oneDNN's int8 sums are not exact.
extern const char* const kNoExactInt8Sums;

}  // namespace q8
