// A memory plan from liveness (docs/plan.md, "Memory plan"): every intermediate value gets an
// offset in one arena, and two values share bytes only when their lifetimes do not overlap.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace q8 {

struct BufferLifetime {
  std::string value;
  int64_t bytes = 0;
  int first = 0, last = 0;  // the node writing it and the last node reading it (inclusive)
};

struct MemoryPlan {
  std::vector<int64_t> offsets;  // per buffer, in the order given
  int64_t arena_bytes = 0;       // the peak: the arena every buffer fits in
  int64_t total_bytes = 0;       // what one buffer per value would take
};

// Greedy by size (largest first, ties by first use, then by index): each buffer takes the lowest
// 64-byte-aligned offset that overlaps no placed buffer alive at the same time. Deterministic.
MemoryPlan plan_memory(const std::vector<BufferLifetime>& buffers);

}  // namespace q8
