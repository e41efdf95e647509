#include "engine/exec/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace q8 {

namespace {
constexpr int64_t kAlignment = 64;
int64_t aligned(int64_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }
}  // namespace

MemoryPlan plan_memory(const std::vector<BufferLifetime>& buffers) {
  MemoryPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].bytes != buffers[b].bytes) return buffers[a].bytes > buffers[b].bytes;
    return buffers[a].first < buffers[b].first;
  });
  std::vector<size_t> placed;
  for (size_t i : order) {
    const BufferLifetime& b = buffers[i];
    plan.total_bytes += aligned(b.bytes);
    // Placed buffers alive at the same time, by offset; take the first gap that fits.
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (size_t j : placed)
      if (buffers[j].first <= b.last && b.first <= buffers[j].last) busy.emplace_back(plan.offsets[j], plan.offsets[j] + aligned(buffers[j].bytes));
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (const auto& [start, end] : busy) {
      if (offset + aligned(b.bytes) <= start) break;
      offset = std::max(offset, end);
    }
    plan.offsets[i] = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + aligned(b.bytes));
    placed.push_back(i);
  }
  return plan;
}

}  // namespace q8
