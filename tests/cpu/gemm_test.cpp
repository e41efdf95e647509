// q8's GEMM: every instruction set's tile gives the same bits, equal to the documented
// per-element arithmetic (docs/cpu.md), over odd sizes and sizes around the tile.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "engine/cpu/gemm.h"
#include "engine/cpu/gemm_tile.h"

namespace q8 {
namespace {

std::vector<float> random_values(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

TEST(GemmTile, EveryIsaGivesTheSameBitsAsTheFormula) {
  __builtin_cpu_init();
  struct Tile {
    const char* isa;
    GemmTileFn fn;
    int max_rows;
  };
  std::vector<Tile> tiles{{"scalar", gemm_tile_scalar, kGemmRows}};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) tiles.push_back({"avx2", gemm_tile_avx2, kGemmRows});
  if (__builtin_cpu_supports("avx512f")) tiles.push_back({"avx512", gemm_tile_avx512, kGemmRowsAvx512});
  constexpr int kMaxRows = std::max(kGemmRows, kGemmRowsAvx512);
  for (int64_t k : {0, 1, 3, 7, 17, 33, 127, 300}) {
    const std::vector<float> a = random_values(size_t(kMaxRows * std::max<int64_t>(k, 1)), 1);
    const std::vector<float> panel = random_values(size_t(std::max<int64_t>(k, 1) * kGemmCols), 2);
    for (int rows = 1; rows <= kMaxRows; ++rows) {
      std::vector<float> want(size_t(kMaxRows * kGemmCols), 0.0f);
      for (int r = 0; r < rows; ++r)
        for (int j = 0; j < kGemmCols; ++j) {
          float acc = 0.0f;  // acc = fma(A[r, k], B[k, j], acc), k ascending
          for (int64_t kk = 0; kk < k; ++kk) acc = std::fma(a[size_t(r * k + kk)], panel[size_t(kk * kGemmCols + j)], acc);
          want[size_t(r * kGemmCols + j)] = acc;
        }
      for (const auto& [isa, fn, max_rows] : tiles) {
        if (rows > max_rows) continue;
        std::vector<float> got(size_t(kMaxRows * kGemmCols), 0.0f);
        fn(a.data(), k, 1, panel.data(), k, rows, got.data(), false);
        EXPECT_EQ(std::memcmp(got.data(), want.data(), size_t(rows * kGemmCols) * sizeof(float)), 0)
            << isa << " k=" << k << " rows=" << rows;
        // The same chain in two stretches of k: the second continues from the first's tile.
        const int64_t half = k / 2;
        std::vector<float> split(size_t(kMaxRows * kGemmCols), 0.0f);
        fn(a.data(), k, 1, panel.data(), half, rows, split.data(), false);
        fn(a.data() + half, k, 1, panel.data() + half * kGemmCols, k - half, rows, split.data(), true);
        EXPECT_EQ(std::memcmp(split.data(), want.data(), size_t(rows * kGemmCols) * sizeof(float)), 0)
            << isa << " in two stretches, k=" << k << " rows=" << rows;
      }
    }
  }
}

// A row of C is the same whatever rows surround it (M), whatever N is, and with A or B transposed.
TEST(Gemm, RowsDoNotDependOnTheShapeAround) {
  for (int64_t k : {1, 5, 64, 129, 300, 600}) {
    for (int64_t n : {1, 31, 32, 33, 100}) {
      const int64_t m = 37;
      const std::vector<float> a = random_values(size_t(m * k), 3), b = random_values(size_t(k * n), 4);
      std::vector<float> c(size_t(m * n));
      sgemm(false, false, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n);
      std::vector<float> bt(size_t(n * k));  // Bᵀ, to check the transposed path gives the same bits
      for (int64_t i = 0; i < k; ++i)
        for (int64_t j = 0; j < n; ++j) bt[size_t(j * k + i)] = b[size_t(i * n + j)];
      for (int64_t row : {int64_t(0), int64_t(5), int64_t(6), m - 1}) {
        std::vector<float> one(static_cast<size_t>(n));
        sgemm(false, true, 1, n, k, 1.0f, a.data() + row * k, k, bt.data(), k, 0.0f, one.data(), n);
        EXPECT_EQ(std::memcmp(one.data(), c.data() + row * n, size_t(n) * sizeof(float)), 0)
            << "k=" << k << " n=" << n << " row " << row;
        float want = 0.0f;
        for (int64_t kk = 0; kk < k; ++kk) want = std::fma(a[size_t(row * k + kk)], b[size_t(kk * n + n - 1)], want);
        EXPECT_EQ(c[size_t(row * n + n - 1)], want);
      }
      // B packed once (a constant weight), then multiplied: the same bits.
      const PackedB packed = pack_gemm_b(true, n, k, bt.data(), k);
      std::vector<float> c_packed(size_t(m * n));
      sgemm_packed(false, m, 1.0f, a.data(), k, packed, 0.0f, c_packed.data(), n);
      EXPECT_EQ(std::memcmp(c_packed.data(), c.data(), c.size() * sizeof(float)), 0) << "packed, k=" << k << " n=" << n;
    }
  }
}

// Every element of C is the documented chain, when A spans several row blocks of the task order
// (K = 600: 18 row tasks a block, 21 in all; K = 3000: 3 a block, 5 in all) and the last block is partial.
TEST(Gemm, EveryElementIsTheChainAcrossRowBlocks) {
  for (const auto& [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1000, 100, 600}, {200, 65, 3000}}) {
    const std::vector<float> a = random_values(size_t(m * k), 7), b = random_values(size_t(k * n), 8);
    std::vector<float> c(size_t(m * n), -1.0f);
    sgemm(false, false, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n);
    int64_t wrong = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float want = 0.0f;
        for (int64_t kk = 0; kk < k; ++kk) want = std::fma(a[size_t(i * k + kk)], b[size_t(kk * n + j)], want);
        wrong += std::memcmp(&want, &c[size_t(i * n + j)], sizeof(float)) != 0;
      }
    EXPECT_EQ(wrong, 0) << m << " x " << n << " x " << k;
  }
}

// The epilogue: C = acc + bias[n], then the activation over each stored stretch of a row, the
// bits of the GEMM's C plus the bias and the activation applied afterwards, element by element
// (N past a panel and M past a row task, so stretches end mid-row and at the last partial panel).
void square_in_place(float* v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) v[i] = v[i] * v[i] - 0.5f;
}

TEST(Gemm, TheEpilogueAddsTheBiasThenAppliesTheActivation) {
  const int64_t m = 53, n = 70, k = 300;
  const std::vector<float> a = random_values(size_t(m * k), 3), b = random_values(size_t(k * n), 4), bias = random_values(size_t(n), 5);
  std::vector<float> plain(size_t(m * n)), with_bias(size_t(m * n)), activated(size_t(m * n));
  const PackedB packed = pack_gemm_b(false, n, k, b.data(), n);
  sgemm_packed(false, m, 1.0f, a.data(), k, packed, 0.0f, plain.data(), n);
  sgemm_packed(false, m, 1.0f, a.data(), k, packed, 0.0f, with_bias.data(), n, GemmEpilogue{bias.data(), nullptr});
  sgemm_packed(false, m, 1.0f, a.data(), k, packed, 0.0f, activated.data(), n, GemmEpilogue{bias.data(), square_in_place});
  int64_t wrong = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float want = plain[size_t(i * n + j)] + bias[size_t(j)];
      wrong += std::memcmp(&want, &with_bias[size_t(i * n + j)], sizeof(float)) != 0;
      square_in_place(&want, 1);
      wrong += std::memcmp(&want, &activated[size_t(i * n + j)], sizeof(float)) != 0;
    }
  EXPECT_EQ(wrong, 0);
}

// Executors over one graph share a constant B's panels; a B whose values changed at the same
// address (a freed weight's memory reused) gets panels of its own values.
TEST(Gemm, SharedPackedBIsOneCopyOfTheValuesItHolds) {
  const int64_t k = 40, n = 70;
  std::vector<float> b = random_values(size_t(k * n), 5);
  const auto first = shared_packed_gemm_b(false, n, k, b.data(), n);
  EXPECT_EQ(shared_packed_gemm_b(false, n, k, b.data(), n), first);
  EXPECT_NE(shared_packed_gemm_b(true, k, n, b.data(), n), first);  // the same memory read as Bᵀ
  b[size_t(k * n - 1)] += 1.0f;
  const auto changed = shared_packed_gemm_b(false, n, k, b.data(), n);
  EXPECT_NE(changed, first);
  const std::vector<float> a = random_values(size_t(3 * k), 6);
  std::vector<float> want(size_t(3 * n)), got(size_t(3 * n));
  sgemm(false, false, 3, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, want.data(), n);
  sgemm_packed(false, 3, 1.0f, a.data(), k, *changed, 0.0f, got.data(), n);
  EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)), 0);
}

}  // namespace
}  // namespace q8
