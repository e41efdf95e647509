// q8_exp and q8_sigmoid (kernels/exp.cl), 16 values at a time with AVX-512: the same
// IEEE operations in the same order as the scalar function, so the same bits (tests/cpu/
// exp_avx512_test.cpp compares them). The scalar q8_exp calls std::fma and std::rint, which the
// baseline x86-64 build cannot inline or vectorize.
#pragma once

#include <cstdint>

namespace q8 {

// y[i] = q8_exp(x[i]) for the first n - n % 16 values; returns how many it wrote.
int64_t exp_avx512(const float* x, float* y, int64_t n);
// y[i] = q8_sigmoid(x[i]) for the first n - n % 16 values; returns how many it wrote.
int64_t sigmoid_avx512(const float* x, float* y, int64_t n);

// The array function for a unary op: the AVX-512 one where the CPU (and Q8_MAX_CPU_ISA) allows
// it, else nullptr (the op's scalar loop does all).
using UnaryArrayFn = int64_t (*)(const float*, float*, int64_t);
UnaryArrayFn wide_or_null(UnaryArrayFn avx512);

}  // namespace q8
