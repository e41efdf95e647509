// Parallel loops on q8's thread pool. Idle workers sleep on a condition variable rather than
// spin, so they never take cores from OpenBLAS's threads between loops.
#pragma once

#include <cstdint>
#include <functional>

namespace q8 {

// Calls fn(begin, end) on disjoint ranges covering [0, n), using every compute thread when there
// are at least 2 · min_chunk items (serially otherwise, and inside another parallel loop).
void parallel_for(int64_t n, int64_t min_chunk, const std::function<void(int64_t begin, int64_t end)>& fn);

// Resizes the pool (engine/cpu/blas.h's set_compute_threads calls this).
void set_pool_threads(int threads);

}  // namespace q8
