#include "engine/cpu/gemm.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/cpu/gemm_tile.h"
#include "engine/cpu/parallel.h"
#include "engine/ir/error.h"

namespace q8 {

void gemm_tile_scalar(const float* a, int64_t a_rs, int64_t a_cs, const float* panel, int64_t k, int rows, float* tile,
                      bool accumulate) {
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < kGemmCols; ++j) {
      float acc = accumulate ? tile[r * kGemmCols + j] : 0.0f;
      for (int64_t kk = 0; kk < k; ++kk) acc = std::fma(a[r * a_rs + kk * a_cs], panel[kk * kGemmCols + j], acc);
      tile[r * kGemmCols + j] = acc;
    }
}

namespace {

struct Kernel {
  std::string_view isa;
  GemmTileFn tile;
  int rows;  // the tile's MR
};

// The best tile the CPU runs, capped by Q8_MAX_CPU_ISA.
Kernel choose_kernel() {
  const char* cap_env = std::getenv("Q8_MAX_CPU_ISA");
  const std::string cap = cap_env ? cap_env : "avx512";
  check(cap == "avx512" || cap == "avx2" || cap == "scalar",
        "Q8_MAX_CPU_ISA is '" + cap + "'; expected avx512, avx2 or scalar");
  __builtin_cpu_init();
  if (cap == "avx512" && __builtin_cpu_supports("avx512f")) return {"avx512", gemm_tile_avx512, kGemmRowsAvx512};
  if (cap != "scalar" && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return {"avx2", gemm_tile_avx2, kGemmRows};
  return {"scalar", gemm_tile_scalar, kGemmRows};
}

const Kernel& kernel() {
  static const Kernel k = choose_kernel();
  return k;
}

constexpr int64_t kRowsPerTask = 48;  // a multiple of every tile's MR
static_assert(kRowsPerTask % kGemmRows == 0 && kRowsPerTask % kGemmRowsAvx512 == 0);
// K is walked in stretches of this many: a stretch of a panel (32 KiB) stays in cache while every
// row tile of a task runs over it.
constexpr int64_t kDepthPerStretch = 256;
// Rows of A a block holds at most, by bytes: a block of A stays in L2 (or close) while every panel of B
// passes over it (docs/cpu.md, "Task order").
constexpr int64_t kBlockBytesOfA = int64_t(2) << 20;

// The order of the GEMM's tasks (a panel of B by kRowsPerTask rows of A): A in row blocks that fit
// L2; within a block, panel by panel, each panel over every row task of the block. B passes from
// memory once per block, not once per row task; A's block is read from L2.
struct TaskOrder {
  int64_t panels, row_tasks, block_row_tasks;

  TaskOrder(int64_t m, int64_t n, int64_t k)
      : panels((n + kGemmCols - 1) / kGemmCols),
        row_tasks((m + kRowsPerTask - 1) / kRowsPerTask),
        block_row_tasks(std::max<int64_t>(1, kBlockBytesOfA / (kRowsPerTask * std::max<int64_t>(1, k) * int64_t(sizeof(float))))) {}

  int64_t tasks() const { return panels * row_tasks; }

  // Task t's panel and row task; t runs over [0, tasks()).
  std::pair<int64_t, int64_t> operator()(int64_t t) const {
    const int64_t block = t / (panels * block_row_tasks), first = block * block_row_tasks;
    const int64_t in_block = std::min(block_row_tasks, row_tasks - first), u = t - first * panels;
    return {u / in_block, first + u % in_block};
  }
};

// One row of a tile stored: out[j] = alpha · sum[j] (+ beta · out[j]) (+ bias[j]), the usual case
// (alpha 1, beta 0) in a loop without branches that the compiler vectorizes.
void store_row(const float* __restrict sum, float* __restrict out, int64_t cols, float alpha, float beta, const float* __restrict bias) {
  if (alpha == 1.0f && beta == 0.0f) {
    if (bias) {
      for (int64_t j = 0; j < cols; ++j) out[j] = sum[j] + bias[j];
    } else {
      std::memcpy(out, sum, size_t(cols) * sizeof(float));
    }
    return;
  }
  for (int64_t j = 0; j < cols; ++j) {
    float v = alpha == 1.0f ? sum[j] : alpha * sum[j];
    if (beta != 0.0f) v += beta * out[j];
    if (bias) v += bias[j];
    out[j] = v;
  }
}

}  // namespace

std::string_view gemm_isa() { return kernel().isa; }

// B' packed into panels of NR columns: panel p holds B'[k, p·NR + j] at [p][k][j], zero past N.
PackedB pack_gemm_b(bool trans_b, int64_t n, int64_t k, const float* b, int64_t ldb) {
  const int64_t panels = (n + kGemmCols - 1) / kGemmCols;
  PackedB result{n, k, std::vector<float>(size_t(panels * k * kGemmCols))};
  std::vector<float>& packed = result.panels;
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
  return result;
}

namespace {

// Whether packed holds B' (the bits of every value; the zero padding past N aside).
bool holds(const PackedB& packed, bool trans_b, const float* b, int64_t ldb) {
  const float* row = packed.panels.data();
  for (int64_t j0 = 0; j0 < packed.n; j0 += kGemmCols) {
    const int64_t cols = std::min<int64_t>(kGemmCols, packed.n - j0);
    for (int64_t kk = 0; kk < packed.k; ++kk, row += kGemmCols) {
      if (!trans_b) {
        if (std::memcmp(row, b + kk * ldb + j0, size_t(cols) * sizeof(float)) != 0) return false;
        continue;
      }
      for (int64_t j = 0; j < cols; ++j)
        if (std::memcmp(row + j, b + (j0 + j) * ldb + kk, sizeof(float)) != 0) return false;
    }
  }
  return true;
}

}  // namespace

std::shared_ptr<const PackedB> shared_packed_gemm_b(bool trans_b, int64_t n, int64_t k, const float* b, int64_t ldb) {
  using Key = std::tuple<const float*, bool, int64_t, int64_t, int64_t>;
  static std::mutex mutex;
  static std::map<Key, std::weak_ptr<const PackedB>> copies;
  const std::lock_guard<std::mutex> lock(mutex);
  std::erase_if(copies, [](const auto& entry) { return entry.second.expired(); });
  const Key key{b, trans_b, n, k, ldb};
  if (const auto it = copies.find(key); it != copies.end())
    if (std::shared_ptr<const PackedB> copy = it->second.lock(); copy && holds(*copy, trans_b, b, ldb)) return copy;
  auto copy = std::make_shared<const PackedB>(pack_gemm_b(trans_b, n, k, b, ldb));
  copies[key] = copy;
  return copy;
}

void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  sgemm_packed(trans_a, m, alpha, a, lda, pack_gemm_b(trans_b, n, k, b, ldb), beta, c, ldc);
}

void sgemm_packed(bool trans_a, int64_t m, float alpha, const float* a, int64_t lda, const PackedB& b, float beta, float* c,
                  int64_t ldc, const GemmEpilogue& epilogue) {
  const int64_t n = b.n, k = b.k;
  if (m <= 0 || n <= 0) return;
  const GemmTileFn tile_fn = kernel().tile;
  const int64_t tile_rows = kernel().rows;
  const std::vector<float>& packed = b.panels;
  const int64_t a_rs = trans_a ? 1 : lda, a_cs = trans_a ? lda : 1;
  const TaskOrder order(m, n, k);
  const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 18) / std::max<int64_t>(1, kRowsPerTask * kGemmCols * k));
  // Tasks split the output only; each element's sum is one chain of tile calls, k ascending (gemm.h).
  parallel_for(order.tasks(), grain, [&](int64_t t0, int64_t t1) {
    float acc[kRowsPerTask * kGemmCols];
    for (int64_t t = t0; t < t1; ++t) {
      const auto [p, rt] = order(t);
      const int64_t j0 = p * kGemmCols, cols = std::min<int64_t>(kGemmCols, n - j0);
      const float* panel = packed.data() + p * k * kGemmCols;
      const int64_t r_begin = rt * kRowsPerTask, r_end = std::min(m, r_begin + kRowsPerTask);
      for (int64_t k0 = 0; k0 == 0 || k0 < k; k0 += kDepthPerStretch) {
        const int64_t depth = std::min(kDepthPerStretch, k - k0);
        for (int64_t r0 = r_begin; r0 < r_end; r0 += tile_rows)
          tile_fn(a + r0 * a_rs + k0 * a_cs, a_rs, a_cs, panel + k0 * kGemmCols, depth,
                  int(std::min<int64_t>(tile_rows, r_end - r0)), acc + (r0 - r_begin) * kGemmCols, k0 > 0);
      }
      for (int64_t r = r_begin; r < r_end; ++r)
        store_row(acc + (r - r_begin) * kGemmCols, c + r * ldc + j0, cols, alpha, beta, epilogue.bias ? epilogue.bias + j0 : nullptr);
      if (epilogue.activation)
        for (int64_t r = r_begin; r < r_end; ++r) epilogue.activation(c + r * ldc + j0, cols);
    }
  });
}

}  // namespace q8
