// Unary float functions many values at a time: q8_exp, q8_sigmoid (kernels/exp.cl), q8_erf and
// q8_gelu (kernels/gelu.cl) 16 at a time with AVX-512 and 8 with AVX2 (and FMA), q8_hard_swish 8
// at a time with AVX2: the same IEEE
// operations in the same order as the scalar function, so the same bits
// (tests/cpu/unary_wide_test.cpp compares them). The scalar q8_exp calls std::fma and std::rint,
// which the baseline x86-64 build cannot inline or vectorize.
#pragma once

#include <cstdint>

namespace q8 {

// y[i] = q8_exp(x[i]) for the first n - n % 16 values (AVX-512) or n - n % 8 (AVX2); returns how
// many it wrote.
int64_t exp_avx512(const float* x, float* y, int64_t n);
int64_t exp_avx2(const float* x, float* y, int64_t n);
// y[i] = q8_sigmoid(x[i]), likewise.
int64_t sigmoid_avx512(const float* x, float* y, int64_t n);
int64_t sigmoid_avx2(const float* x, float* y, int64_t n);
// y[i] = q8_erf(x[i]) or q8_gelu(x[i]), likewise.
int64_t erf_avx512(const float* x, float* y, int64_t n);
int64_t erf_avx2(const float* x, float* y, int64_t n);
int64_t gelu_avx512(const float* x, float* y, int64_t n);
int64_t gelu_avx2(const float* x, float* y, int64_t n);
// y[i] = q8_hard_swish(x[i]) for the first n - n % 8 values.
int64_t hard_swish_avx2(const float* x, float* y, int64_t n);

// The array function for a unary op: the widest the CPU (and Q8_MAX_CPU_ISA) allows of those
// given (avx512 may be nullptr), else nullptr (the op's scalar loop does all).
using UnaryArrayFn = int64_t (*)(const float*, float*, int64_t);
UnaryArrayFn wide_or_null(UnaryArrayFn avx512, UnaryArrayFn avx2);

}  // namespace q8
