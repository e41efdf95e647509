// How many threads q8 computes with: its parallel loops and oneDNN share one OpenMP team.
#pragma once

namespace q8 {

// The most threads --threads accepts: more only oversubscribes and can exhaust memory for stacks.
inline constexpr int kMaxThreads = 1024;

// Defaults to the machine's cores (OpenMP's default, or OMP_NUM_THREADS).
int compute_threads();
void set_compute_threads(int threads);
// For work fed by a reader thread (the batch stream of calibrate and compare) when --threads is
// not given: one core is left to the reader on machines with more than two, unless
// OMP_NUM_THREADS says otherwise. A team on every core spins between ops and starves the reader:
// 3,882 against 17,614 samples/s measured on 16 cores (docs/cpu.md, "Threads").
void use_threads_beside_a_reader();

}  // namespace q8
