// q8's own single-precision GEMM. Every element of C is computed by the same arithmetic whatever
// the shapes, its position, the thread count or the instruction set (docs/cpu.md):
//   acc = 0;  for k = 0 … K−1: acc = fma(A'[m, k], B'[k, n], acc);  C = alpha · acc (+ beta · C).
// So a sample's rows give bit-identical results in any batch.
#pragma once

#include <cstdint>
#include <string_view>

namespace q8 {

// C[M×N] = alpha · op(A) · op(B) + beta · C, row-major; lda/ldb/ldc are row strides.
void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

// The kernel in use: "avx512", "avx2" or "scalar" (the best the CPU has, capped by the
// environment variable Q8_MAX_CPU_ISA=avx512|avx2|scalar). Results are the same for all three.
std::string_view gemm_isa();

}  // namespace q8
