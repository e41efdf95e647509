// The GEMM tile with AVX-512: 12 rows × 32 columns in 24 registers (built with -mavx512f -mfma);
// the two B vectors and the broadcast A value make 27 of the 32.
#include <immintrin.h>

#include "engine/cpu/gemm_tile.h"

namespace q8 {

namespace {

template <int Rows>
void tile_rows(const float* a, int64_t a_rs, int64_t a_cs, const float* panel, int64_t k, float* tile, bool accumulate) {
  __m512 acc[Rows][2];
  for (int r = 0; r < Rows; ++r)
    for (int v = 0; v < 2; ++v)
      acc[r][v] = accumulate ? _mm512_loadu_ps(tile + r * kGemmCols + 16 * v) : _mm512_setzero_ps();
  for (int64_t kk = 0; kk < k; ++kk) {
    // The panel's two lines 8 steps ahead: each row tile walks the panel's stretch again, and
    // without the hint its loads waited on L2 (BERT-base FP32 on two threads 104 → 95 ms).
    _mm_prefetch(reinterpret_cast<const char*>(panel + (kk + 8) * kGemmCols), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(panel + (kk + 8) * kGemmCols + 16), _MM_HINT_T0);
    const __m512 b0 = _mm512_loadu_ps(panel + kk * kGemmCols), b1 = _mm512_loadu_ps(panel + kk * kGemmCols + 16);
    for (int r = 0; r < Rows; ++r) {
      const __m512 x = _mm512_set1_ps(a[r * a_rs + kk * a_cs]);
      acc[r][0] = _mm512_fmadd_ps(x, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(x, b1, acc[r][1]);
    }
  }
  for (int r = 0; r < Rows; ++r)
    for (int v = 0; v < 2; ++v) _mm512_storeu_ps(tile + r * kGemmCols + 16 * v, acc[r][v]);
}

}  // namespace

void gemm_tile_avx512(const float* a, int64_t a_rs, int64_t a_cs, const float* panel, int64_t k, int rows, float* tile,
                      bool accumulate) {
  with_tile_rows<kGemmRowsAvx512>(rows, [&](auto r) { tile_rows<decltype(r)::value>(a, a_rs, a_cs, panel, k, tile, accumulate); });
}

}  // namespace q8
