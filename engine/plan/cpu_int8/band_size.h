// How much of a convolution's int32 sums the CPU INT8 backend makes at once before their epilogue
// reads them back (docs/cpu.md, "Output row bands").
#pragma once

#include <cstdint>

namespace q8 {

// About 128 KB of sums: inside every x86 core's L2.
constexpr int64_t kBandAccBytes = 128 * 1024;

}  // namespace q8
