// The GEMM's inner tile, one implementation per instruction set (gemm_avx512.cpp,
// gemm_avx2.cpp, gemm.cpp's scalar one), all with the same arithmetic per element.
#pragma once

#include <cstdint>
#include <type_traits>

namespace q8 {

inline constexpr int kGemmRows = 6;         // MR of the AVX2 and scalar tiles: rows of A per tile
inline constexpr int kGemmRowsAvx512 = 12;  // MR of the AVX-512 tile (24 of its 32 registers accumulate)
inline constexpr int kGemmCols = 32;        // NR: columns of a packed B panel

// tile[r][j] = Σ_k A[r·a_rs + k·a_cs] · panel[k·NR + j] for r < rows (≤ the tile's MR), j < NR, each sum
// accumulated with one fused multiply-add per k, k ascending, starting from 0 — or, when
// `accumulate`, from the tile's values (a later stretch of k continues the same chain: the
// GEMM splits K into stretches that stay in cache, without changing any element's arithmetic).
using GemmTileFn = void (*)(const float* a, int64_t a_rs, int64_t a_cs, const float* panel, int64_t k, int rows,
                            float* tile, bool accumulate);

// f(std::integral_constant<int, R>{}) for R = rows, 1 … MaxRows (MaxRows for more): a tile's row
// count as a template argument, for the instruction-set tiles' register arrays.
template <int MaxRows, typename F>
void with_tile_rows(int rows, F&& f) {
  if constexpr (MaxRows > 1) {
    if (rows < MaxRows) return with_tile_rows<MaxRows - 1>(rows, f);
  }
  f(std::integral_constant<int, MaxRows>{});
}

void gemm_tile_scalar(const float* a, int64_t a_rs, int64_t a_cs, const float* panel, int64_t k, int rows, float* tile,
                      bool accumulate);
void gemm_tile_avx2(const float* a, int64_t a_rs, int64_t a_cs, const float* panel, int64_t k, int rows, float* tile,
                    bool accumulate);
void gemm_tile_avx512(const float* a, int64_t a_rs, int64_t a_cs, const float* panel, int64_t k, int rows, float* tile,
                      bool accumulate);

}  // namespace q8
