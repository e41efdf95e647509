#include "engine/exec/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace q8 {

namespace {

constexpr int64_t kAlignment = 64;
int64_t aligned(int64_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

// The placed buffers, found by lifetime: a segment tree over the node a buffer is written by,
// each tree node holding the latest `last` below it, so that the buffers alive during [first,
// last] are found without visiting every placed one (a chain of 100,000 nodes places in
// O(n log n), not O(n²)).
class PlacedByLifetime {
 public:
  PlacedByLifetime(const std::vector<BufferLifetime>& buffers) : buffers_(buffers) {
    int end = 1;
    for (const BufferLifetime& b : buffers) end = std::max(end, b.first + 1);
    while (leaves_ < end) leaves_ *= 2;
    latest_.assign(size_t(2 * leaves_), -1);
    at_.resize(size_t(leaves_));
  }

  void add(size_t i) {
    const BufferLifetime& b = buffers_[i];
    at_[size_t(b.first)].push_back(i);
    for (int n = leaves_ + b.first; n >= 1; n /= 2) latest_[size_t(n)] = std::max(latest_[size_t(n)], b.last);
  }

  // Every placed buffer whose lifetime meets [first, last].
  void alive(int first, int last, std::vector<size_t>& out) const { visit(1, 0, leaves_ - 1, first, last, out); }

 private:
  void visit(int n, int lo, int hi, int first, int last, std::vector<size_t>& out) const {
    if (lo > last || latest_[size_t(n)] < first) return;
    if (lo == hi) {
      for (size_t j : at_[size_t(lo)])
        if (buffers_[j].last >= first) out.push_back(j);
      return;
    }
    const int mid = (lo + hi) / 2;
    visit(2 * n, lo, mid, first, last, out);
    visit(2 * n + 1, mid + 1, hi, first, last, out);
  }

  const std::vector<BufferLifetime>& buffers_;
  int leaves_ = 1;
  std::vector<int> latest_;               // per tree node: the latest `last` of the buffers below it
  std::vector<std::vector<size_t>> at_;   // per node index: the placed buffers it writes
};

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
  PlacedByLifetime placed(buffers);
  std::vector<size_t> alive;
  std::vector<std::pair<int64_t, int64_t>> busy;
  for (size_t i : order) {
    const BufferLifetime& b = buffers[i];
    plan.total_bytes += aligned(b.bytes);
    // Placed buffers alive at the same time, by offset; take the first gap that fits.
    alive.clear();
    placed.alive(b.first, b.last, alive);
    busy.clear();
    for (size_t j : alive) busy.emplace_back(plan.offsets[j], plan.offsets[j] + aligned(buffers[j].bytes));
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (const auto& [start, end] : busy) {
      if (offset + aligned(b.bytes) <= start) break;
      offset = std::max(offset, end);
    }
    plan.offsets[i] = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + aligned(b.bytes));
    placed.add(i);
  }
  return plan;
}

}  // namespace q8
