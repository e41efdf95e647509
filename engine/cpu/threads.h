// How many threads q8 computes with: its parallel loops and oneDNN share one OpenMP team.
#pragma once

namespace q8 {

// The most threads --threads accepts: more only oversubscribes and can exhaust memory for stacks.
inline constexpr int kMaxThreads = 1024;

// Defaults to the machine's cores (OpenMP's default, or OMP_NUM_THREADS).
int compute_threads();
void set_compute_threads(int threads);

}  // namespace q8
