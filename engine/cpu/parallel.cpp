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
  // The team is always every compute thread, those past `parts` idle: a region of another size
  // than the last makes libgomp re-dock the pool's threads, and the next full-size region (each
  // oneDNN primitive's) waits to wake them. Alternating sizes (an INT8 epilogue over fewer rows
  // than threads between two oneDNN convolutions) made batch-1 INT8 runs 3-7x slower at 16 threads
  // than at 8 (docs/cpu.md, "Threads").
  // An exception may not leave an OpenMP region: the first one is kept and rethrown after it.
  std::exception_ptr error;
#pragma omp parallel num_threads(compute_threads())
  {
    const int64_t part = omp_get_thread_num(), team = std::min<int64_t>(parts, omp_get_num_threads());
    const int64_t begin = part < team ? n * part / team : 0, end = part < team ? n * (part + 1) / team : 0;
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
