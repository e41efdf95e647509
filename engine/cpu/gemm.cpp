#include "engine/cpu/gemm.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/cpu/gemm_tile.h"
#include "engine/cpu/parallel.h"
#include "engine/ir/error.h"

namespace q8 {

void gemm_tile_scalar(const float* a, int64_t a_rs, int64_t a_cs, const float* panel, int64_t k, int rows, float* tile) {
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < kGemmCols; ++j) {
      float acc = 0.0f;
      for (int64_t kk = 0; kk < k; ++kk) acc = std::fma(a[r * a_rs + kk * a_cs], panel[kk * kGemmCols + j], acc);
      tile[r * kGemmCols + j] = acc;
    }
}

namespace {

struct Kernel {
  std::string_view isa;
  GemmTileFn tile;
};

// The best tile the CPU runs, capped by Q8_MAX_CPU_ISA.
Kernel choose_kernel() {
  const char* cap_env = std::getenv("Q8_MAX_CPU_ISA");
  const std::string cap = cap_env ? cap_env : "avx512";
  check(cap == "avx512" || cap == "avx2" || cap == "scalar",
        "Q8_MAX_CPU_ISA is '" + cap + "'; expected avx512, avx2 or scalar");
  __builtin_cpu_init();
  if (cap == "avx512" && __builtin_cpu_supports("avx512f")) return {"avx512", gemm_tile_avx512};
  if (cap != "scalar" && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return {"avx2", gemm_tile_avx2};
  return {"scalar", gemm_tile_scalar};
}

const Kernel& kernel() {
  static const Kernel k = choose_kernel();
  return k;
}

// B' packed into panels of NR columns: panel p holds B'[k, p·NR + j] at [p][k][j], zero past N.
std::vector<float> pack_b(bool trans_b, int64_t n, int64_t k, const float* b, int64_t ldb) {
  const int64_t panels = (n + kGemmCols - 1) / kGemmCols;
  std::vector<float> packed(size_t(panels * k * kGemmCols));
  parallel_for(panels, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, k * kGemmCols)), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      float* dst = packed.data() + p * k * kGemmCols;
      const int64_t j0 = p * kGemmCols, cols = std::min<int64_t>(kGemmCols, n - j0);
      for (int64_t kk = 0; kk < k; ++kk) {
        float* row = dst + kk * kGemmCols;
        for (int64_t j = 0; j < cols; ++j) row[j] = trans_b ? b[(j0 + j) * ldb + kk] : b[kk * ldb + j0 + j];
        for (int64_t j = cols; j < kGemmCols; ++j) row[j] = 0.0f;
      }
    }
  });
  return packed;
}

constexpr int64_t kRowsPerTask = 8 * kGemmRows;

}  // namespace

std::string_view gemm_isa() { return kernel().isa; }

void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  const GemmTileFn tile_fn = kernel().tile;
  const std::vector<float> packed = pack_b(trans_b, n, k, b, ldb);
  const int64_t a_rs = trans_a ? 1 : lda, a_cs = trans_a ? lda : 1;
  const int64_t panels = (n + kGemmCols - 1) / kGemmCols, row_tasks = (m + kRowsPerTask - 1) / kRowsPerTask;
  const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 18) / std::max<int64_t>(1, kRowsPerTask * kGemmCols * k));
  // Tasks split the output only; each element's sum runs in one tile call (gemm.h).
  parallel_for(panels * row_tasks, grain, [&](int64_t t0, int64_t t1) {
    float tile[kGemmRows * kGemmCols];
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t p = t % panels, rt = t / panels;
      const int64_t j0 = p * kGemmCols, cols = std::min<int64_t>(kGemmCols, n - j0);
      const float* panel = packed.data() + p * k * kGemmCols;
      const int64_t r_end = std::min(m, (rt + 1) * kRowsPerTask);
      for (int64_t r0 = rt * kRowsPerTask; r0 < r_end; r0 += kGemmRows) {
        const int rows = int(std::min<int64_t>(kGemmRows, r_end - r0));
        tile_fn(a + r0 * a_rs, a_rs, a_cs, panel, k, rows, tile);
        for (int r = 0; r < rows; ++r) {
          float* out = c + (r0 + r) * ldc + j0;
          const float* acc = tile + r * kGemmCols;
          for (int64_t j = 0; j < cols; ++j) {
            float v = alpha == 1.0f ? acc[j] : alpha * acc[j];
            if (beta != 0.0f) v += beta * out[j];
            out[j] = v;
          }
        }
      }
    }
  });
}

}  // namespace q8
