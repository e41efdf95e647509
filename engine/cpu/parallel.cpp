#include "engine/cpu/parallel.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <exception>

#include "engine/cpu/threads.h"

namespace q8 {

int compute_threads() { return omp_get_max_threads(); }

void set_compute_threads(int threads) { omp_set_num_threads(std::max(1, threads)); }

void use_threads_beside_a_reader() {
  const char* env = std::getenv("OMP_NUM_THREADS");
  const int cores = omp_get_num_procs();
  if ((env && *env) || cores <= 2) return;
  set_compute_threads(cores - 1);
}

bool inside_parallel() { return omp_in_parallel() != 0; }

void parallel_for(int64_t n, int64_t min_chunk, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  min_chunk = std::max<int64_t>(min_chunk, 1);
  const int64_t parts = inside_parallel() ? 1 : std::min<int64_t>(compute_threads(), n / min_chunk);
  if (parts <= 1) {
    fn(0, n);
    return;
  }
  // An exception may not leave an OpenMP region: the first one is kept and rethrown after it.
  std::exception_ptr error;
#pragma omp parallel num_threads(int(parts))
  {
    const int64_t part = omp_get_thread_num(), team = omp_get_num_threads();
    const int64_t begin = n * part / team, end = n * (part + 1) / team;
    try {
      if (begin < end) fn(begin, end);
    } catch (...) {
#pragma omp critical(q8_parallel_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace q8
