// The requantization epilogue over a run of consecutive channels (one output position), with
// AVX-512 or AVX2 (docs/quantization.md, "Requantization" and "Residual Add"): per channel c,
// t = acc[c] + b[c], then without a residual y = clamp(rne((float)t · m[c]), lo, hi), and with one
// the residual sum (q8_residual_sum in kernels/requantize.cl). The same IEEE
// operations in the same order as those scalar functions (one multiply, fma where they write fma,
// ties to even), so the same bytes.
#pragma once

#include <cstdint>

namespace q8 {

// How the residual enters (docs/quantization.md, "Residual Add"; abi.h's residual modes in order):
// the sum z = rne(fma(t, m, r · R)); after the op's own rounding y, z = rne(fma(y, A, r · R)); or
// with the residual first, z = rne(fma(r, R, y · A)).
enum class ResidualSum { Plain, Rounded, RoundedFirst };

struct RequantizeRow {
  const int32_t* acc = nullptr;
  const int32_t* bias = nullptr;
  const float* m = nullptr;
  const int8_t* residual = nullptr;  // nullptr: no residual
  ResidualSum mode = ResidualSum::Plain;
  float r_scale = 0.0f, y_ratio = 0.0f;  // R and A
  int32_t lo = -128, hi = 127;
  int8_t* y = nullptr;
};

// Writes y[0, k) for the largest k ≤ n that the CPU's vectors cover (n with AVX-512, its tail
// padded to a vector; a multiple of 8 with AVX2; 0 without either or under Q8_MAX_CPU_ISA=scalar), but
// where some acc[c] + b[c] leaves int32, k is the start of the first vector of 16 (AVX-512) or 8
// (AVX2) in which it does, and y past k may hold anything: the caller's scalar loop then reaches
// it and reports the overflow. Returns k.
int64_t requantize_row(const RequantizeRow& row, int64_t n);

// The two vector bodies (engine/cpu/requantize_row_avx512.cpp, _avx2.cpp), for the dispatch and the tests.
int64_t requantize_row_avx512(const RequantizeRow& row, int64_t n);
int64_t requantize_row_avx2(const RequantizeRow& row, int64_t n);

}  // namespace q8
