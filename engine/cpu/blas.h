// The one door to OpenBLAS: row-major single-precision GEMM and thread control.
#pragma once

#include <cstdint>

namespace q8 {

// C[M×N] = alpha · op(A) · op(B) + beta · C, row-major; lda/ldb/ldc are row strides.
void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

// Threads q8 computes with (its parallel loops and OpenBLAS); defaults to the machine's cores.
int compute_threads();
void set_compute_threads(int threads);

}  // namespace q8
