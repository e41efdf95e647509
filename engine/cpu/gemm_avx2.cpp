// The GEMM tile with AVX2: 3 rows × 32 columns in 12 registers at a time (built with -mavx2
// -mfma); a 6-row tile is two such passes.
#include <immintrin.h>

#include <algorithm>

#include "engine/cpu/gemm_tile.h"

namespace q8 {

namespace {

template <int Rows>
void tile_rows(const float* a, int64_t a_rs, int64_t a_cs, const float* panel, int64_t k, float* tile) {
  __m256 acc[Rows][4];
  for (int r = 0; r < Rows; ++r)
    for (int v = 0; v < 4; ++v) acc[r][v] = _mm256_setzero_ps();
  for (int64_t kk = 0; kk < k; ++kk) {
    const float* b = panel + kk * kGemmCols;
    const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8), b2 = _mm256_loadu_ps(b + 16),
                 b3 = _mm256_loadu_ps(b + 24);
    for (int r = 0; r < Rows; ++r) {
      const __m256 x = _mm256_set1_ps(a[r * a_rs + kk * a_cs]);
      acc[r][0] = _mm256_fmadd_ps(x, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(x, b1, acc[r][1]);
      acc[r][2] = _mm256_fmadd_ps(x, b2, acc[r][2]);
      acc[r][3] = _mm256_fmadd_ps(x, b3, acc[r][3]);
    }
  }
  for (int r = 0; r < Rows; ++r)
    for (int v = 0; v < 4; ++v) _mm256_storeu_ps(tile + r * kGemmCols + 8 * v, acc[r][v]);
}

void tile_upto3(const float* a, int64_t a_rs, int64_t a_cs, const float* panel, int64_t k, int rows, float* tile) {
  switch (rows) {
    case 1: return tile_rows<1>(a, a_rs, a_cs, panel, k, tile);
    case 2: return tile_rows<2>(a, a_rs, a_cs, panel, k, tile);
    default: return tile_rows<3>(a, a_rs, a_cs, panel, k, tile);
  }
}

}  // namespace

void gemm_tile_avx2(const float* a, int64_t a_rs, int64_t a_cs, const float* panel, int64_t k, int rows, float* tile) {
  tile_upto3(a, a_rs, a_cs, panel, k, std::min(rows, 3), tile);
  if (rows > 3) tile_upto3(a + 3 * a_rs, a_rs, a_cs, panel, k, rows - 3, tile + 3 * kGemmCols);
}

}  // namespace q8
