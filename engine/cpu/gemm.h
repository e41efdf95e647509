// q8's own single-precision GEMM. Every element of C is computed by the same arithmetic whatever
// the shapes, its position, the thread count or the instruction set (docs/cpu.md):
//   acc = 0;  for k = 0 … K−1: acc = fma(A'[m, k], B'[k, n], acc);  C = alpha · acc (+ beta · C).
// So a sample's rows give bit-identical results in any batch.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace q8 {

// B' ([K, N]) packed into the GEMM's column panels: pack once for a B that every run shares
// (a MatMul's or Gemm's constant weight), then multiply as often as needed.
struct PackedB {
  int64_t n = 0, k = 0;
  std::vector<float> panels;
};
PackedB pack_gemm_b(bool trans_b, int64_t n, int64_t k, const float* b, int64_t ldb);
// The same, packed once per process for a B that stays put (a graph's initializer): the ops of
// every executor over the graph (calibration's streams, one per thread) share one copy. A copy is
// shared only while its panels still hold B's values, bit for bit (checked on every reuse), so a
// freed and reused address never aliases another weight.
std::shared_ptr<const PackedB> shared_packed_gemm_b(bool trans_b, int64_t n, int64_t k, const float* b, int64_t ldb);

// What follows each element's C = alpha · acc (+ beta · C), in this order: C += bias[n] (when bias
// is given), then activation over each stored stretch of a row's values (when given; it must map
// each value alone, so that the stretches' bounds do not matter). MatMul → Add(bias) → activation
// as one op, with the bits of the three.
struct GemmEpilogue {
  const float* bias = nullptr;                          // N values
  void (*activation)(float* values, int64_t n) = nullptr;  // in place
};

// C[M×N] = alpha · op(A) · op(B) + beta · C, row-major; lda/ldb/ldc are row strides.
void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
// The same with B packed: the same bits as sgemm with the B it was packed from.
void sgemm_packed(bool trans_a, int64_t m, float alpha, const float* a, int64_t lda, const PackedB& b, float beta, float* c,
                  int64_t ldc, const GemmEpilogue& epilogue = {});

// The kernel in use: "avx512", "avx2" or "scalar" (the best the CPU has, capped by the
// environment variable Q8_MAX_CPU_ISA=avx512|avx2|scalar). Results are the same for all three.
std::string_view gemm_isa();

}  // namespace q8
