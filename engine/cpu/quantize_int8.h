// y = clamp(rne(x / s) + z, -128, 127) into int8: QuantizeLinear's formula (docs/quantization.md),
// as engine/ops/quantize_linear.cpp and kernels/quantize.cl compute it, with AVX-512 or AVX2 where
// the CPU (and Q8_MAX_CPU_ISA) allows: the division is IEEE's, rounding half to even, so every path gives
// the same bytes for every finite x (a NaN gives -128 here).
#pragma once

#include <cstdint>

namespace q8 {

// On the calling thread.
void quantize_int8_range(const float* x, int8_t* y, int64_t n, float s, float z);
// Split between the compute threads.
void quantize_int8(const float* x, int8_t* y, int64_t n, float s, float z);

// The first n - n % 16 values with AVX-512; returns how many (engine/cpu/quantize_avx512.cpp).
int64_t quantize_int8_avx512(const float* x, int8_t* y, int64_t n, float s, float z);
// The first n - n % 8 values with AVX2 (engine/cpu/quantize_avx2.cpp).
int64_t quantize_int8_avx2(const float* x, int8_t* y, int64_t n, float s, float z);

}  // namespace q8
