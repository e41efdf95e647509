// Parallel loops on the OpenMP team that oneDNN also uses, so one set of threads serves every
// op (two pools on the same cores starve each other).
#pragma once

#include <cstdint>
#include <functional>

namespace q8 {

// Calls fn(begin, end) on disjoint ranges covering [0, n), using every compute thread when there
// are at least 2 · min_chunk items (serially otherwise, and inside another parallel loop). The
// split covers outputs only: no loop here splits a reduction, so results never depend on it.
void parallel_for(int64_t n, int64_t min_chunk, const std::function<void(int64_t begin, int64_t end)>& fn);

// True inside a parallel_for body (work started there runs on the calling thread).
bool inside_parallel();

}  // namespace q8
