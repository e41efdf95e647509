// The GEMM tile with AVX2: 6 rows × 16 columns in 12 registers (built with -mavx2 -mfma), with
// the two B vectors and the broadcast A value 15 of the 16; a 32-column panel is two such passes.
#include <immintrin.h>

#include "engine/cpu/gemm_tile.h"

namespace q8 {

namespace {

// Columns [half·16, half·16 + 16) of the tile.
template <int Rows>
void tile_half(const float* a, int64_t a_rs, int64_t a_cs, const float* panel, int64_t k, float* tile, bool accumulate) {
  __m256 acc[Rows][2];
  for (int r = 0; r < Rows; ++r)
    for (int v = 0; v < 2; ++v)
      acc[r][v] = accumulate ? _mm256_loadu_ps(tile + r * kGemmCols + 8 * v) : _mm256_setzero_ps();
  for (int64_t kk = 0; kk < k; ++kk) {
    const float* b = panel + kk * kGemmCols;
    _mm_prefetch(reinterpret_cast<const char*>(b + 8 * kGemmCols), _MM_HINT_T0);  // the panel's line 8 steps ahead
    const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
    for (int r = 0; r < Rows; ++r) {
      const __m256 x = _mm256_set1_ps(a[r * a_rs + kk * a_cs]);
      acc[r][0] = _mm256_fmadd_ps(x, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(x, b1, acc[r][1]);
    }
  }
  for (int r = 0; r < Rows; ++r)
    for (int v = 0; v < 2; ++v) _mm256_storeu_ps(tile + r * kGemmCols + 8 * v, acc[r][v]);
}

template <int Rows>
void tile_rows(const float* a, int64_t a_rs, int64_t a_cs, const float* panel, int64_t k, float* tile, bool accumulate) {
  tile_half<Rows>(a, a_rs, a_cs, panel, k, tile, accumulate);
  tile_half<Rows>(a, a_rs, a_cs, panel + 16, k, tile + 16, accumulate);
}

}  // namespace

void gemm_tile_avx2(const float* a, int64_t a_rs, int64_t a_cs, const float* panel, int64_t k, int rows, float* tile,
                    bool accumulate) {
  with_tile_rows<kGemmRows>(rows, [&](auto r) { tile_rows<decltype(r)::value>(a, a_rs, a_cs, panel, k, tile, accumulate); });
}

}  // namespace q8
