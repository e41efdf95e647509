#include "engine/cpu/blas.h"

#include <cblas.h>

#include <algorithm>
#include <thread>

#include "engine/cpu/parallel.h"

namespace q8 {

namespace {
int& threads_setting() {
  static int threads = int(std::max(1u, std::thread::hardware_concurrency()));
  return threads;
}
}  // namespace

void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, int(m), int(n),
              int(k), alpha, a, int(lda), b, int(ldb), beta, c, int(ldc));
}

int compute_threads() { return threads_setting(); }

void set_compute_threads(int threads) {
  threads_setting() = std::max(1, threads);
  set_pool_threads(threads_setting());
  openblas_set_num_threads(threads_setting());
}

}  // namespace q8
