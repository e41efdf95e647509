#include "engine/cpu/blas.h"

#include <cblas.h>

#include <algorithm>
#include <mutex>
#include <thread>

#include "engine/cpu/parallel.h"

namespace q8 {

namespace {

int& threads_setting() {
  static int threads = int(std::max(1u, std::thread::hardware_concurrency()));
  return threads;
}

// OpenBLAS runs single-threaded: q8 splits each large GEMM across its own pool instead. Two
// thread pools on the same cores (OpenBLAS's workers spin for a while after every call) slowed
// GEMMs and every loop between them several-fold on small machines.
void single_threaded_openblas() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

constexpr int64_t kMinFlopsPerThread = int64_t(1) << 21;

}  // namespace

void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  single_threaded_openblas();
  auto gemm = [&](int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
    const float* pa = trans_a ? a + m0 : a + m0 * lda;
    const float* pb = trans_b ? b + n0 * ldb : b + n0;
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, int(m1 - m0),
                int(n1 - n0), int(k), alpha, pa, int(lda), pb, int(ldb), beta, c + m0 * ldc + n0, int(ldc));
  };
  const int64_t parts = std::min<int64_t>(compute_threads(), std::max<int64_t>(1, m * n * k / kMinFlopsPerThread));
  if (parts <= 1) return gemm(0, m, 0, n);
  // Split the wider of M and N into column (or row) blocks, multiples of 16 for the kernels.
  const bool split_n = n >= m;
  const int64_t extent = split_n ? n : m;
  const int64_t block = std::max<int64_t>(16, (extent / parts + 15) / 16 * 16);
  parallel_for((extent + block - 1) / block, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t lo = blk * block, hi = std::min(extent, lo + block);
      if (split_n) gemm(0, m, lo, hi);
      else gemm(lo, hi, 0, n);
    }
  });
}

int compute_threads() { return threads_setting(); }

void set_compute_threads(int threads) {
  threads_setting() = std::max(1, threads);
  set_pool_threads(threads_setting());
}

}  // namespace q8
