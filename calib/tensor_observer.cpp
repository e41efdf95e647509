#include "calib/tensor_observer.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <mutex>
#include <vector>

#include "calib/observe_avx512.h"
#include "engine/cpu/gemm.h"
#include "engine/cpu/parallel.h"

namespace q8 {

void TensorStats::merge(const TensorStats& o) {
  elements += o.elements, zeros += o.zeros, nan += o.nan, pos_inf += o.pos_inf, neg_inf += o.neg_inf;
  min = std::min(min, o.min), max = std::max(max, o.max), max_abs = std::max(max_abs, o.max_abs);
}

namespace {

// Values per parallel chunk: large enough that threads pay off and the per-chunk counts fold
// rarely, small enough to share work; the one-pass scan's 16-bit counts bound it (below).
constexpr int64_t kChunk = kBinCopies * (65535 - 1);

struct ChunkStats {
  float lo = INFINITY, hi = -INFINITY;
  uint64_t zeros = 0, nonfinite = 0;
};

// Running statistics of a chunk, branch-free so loops over it vectorize: NaN and ±Inf have an
// all-ones exponent.
struct StatsAccumulator {
  float lo = INFINITY, hi = -INFINITY;
  uint32_t zeros = 0, nonfinite = 0;

  void add(float v) {
    const bool finite = (std::bit_cast<uint32_t>(v) & 0x7f800000u) != 0x7f800000u;
    nonfinite += !finite;
    zeros += v == 0.0f;
    lo = finite && v < lo ? v : lo;
    hi = finite && v > hi ? v : hi;
  }
  ChunkStats result() const {
    ChunkStats s;
    s.lo = lo, s.hi = hi, s.zeros = zeros, s.nonfinite = nonfinite;
    return s;
  }
};

bool wide_scan();

ChunkStats scan(const float* p, int64_t n) {
  StatsAccumulator acc;
  int64_t i = 0;
  if (wide_scan()) {
    ScanTotals t{acc.lo, acc.hi, 0, 0};
    i = scan_avx512(p, n, t);
    acc.lo = t.lo, acc.hi = t.hi, acc.zeros += t.zeros, acc.nonfinite += t.nonfinite;
  }
  for (; i < n; ++i) acc.add(p[i]);
  return acc.result();
}

// Bins |v| · inv (exact: inv is a power of two) into four interleaved count arrays, which
// breaks the store-to-load chains of repeated bins, then folds them into counts.
void bin_chunk(const float* p, int64_t n, float inv, int64_t bins, bool count_zeros, uint64_t* counts) {
  std::vector<uint32_t> local(size_t(4 * bins), 0);
  const int64_t last = bins - 1;
  int64_t i = 0;
  auto bin_of = [&](float v) {
    const int64_t b = int64_t(std::fabs(v) * inv);
    return b < last ? b : last;
  };
  for (; i + 4 <= n; i += 4)
    for (int k = 0; k < 4; ++k) ++local[size_t(k * bins + bin_of(p[i + k]))];
  for (; i < n; ++i) ++local[size_t(bin_of(p[i]))];
  for (int64_t b = 0; b < bins; ++b)
    counts[b] += uint64_t(local[size_t(b)]) + local[size_t(bins + b)] + local[size_t(2 * bins + b)] + local[size_t(3 * bins + b)];
  if (!count_zeros) {  // zeros all landed in bin 0; take them back out
    uint64_t zeros = 0;
    for (int64_t j = 0; j < n; ++j) zeros += p[j] == 0.0f;
    counts[0] -= zeros;
  }
}

// One pass for the common case — the histogram has a width and the batch fits it: statistics
// and bins together. Values at or past the top of the range (and NaN, ±Inf) land in an extra
// bucket; if any do, the caller takes the two-pass path instead.
struct ChunkResult {
  ChunkStats stats;
  uint64_t overflow = 0;
};

// The AVX-512 scan where the CPU (and Q8_MAX_CPU_ISA) allows it: same results, faster.
bool wide_scan() {
  static const bool wide = gemm_isa() == "avx512";
  return wide;
}

// kBinCopies copies of 16-bit counts (32 KiB at 4,096 bins, of which the lines of the bins in use
// stay in L1). Both loops deal values to the copies in turn, so a chunk puts at most
// kChunk / kBinCopies + 1 values into one copy, and no count overflows.
static_assert(kChunk / kBinCopies + 1 <= 65535);

ChunkResult scan_and_bin(const float* p, int64_t n, float inv, int64_t bins, std::vector<uint64_t>& counts) {
  std::vector<uint16_t> local(size_t(kBinCopies * (bins + 1)), 0);
  const float top = float(bins);
  StatsAccumulator acc;
  auto step = [&](float v, size_t lane) {
    acc.add(v);
    const float scaled = std::fabs(v) * inv;
    const int64_t b = int64_t(scaled < top ? scaled : top);  // NaN and Inf fall to `top`
    ++local[lane * size_t(bins + 1) + size_t(b)];
  };
  int64_t i = 0;
  uint64_t wide_zeros = 0;  // zeros the wide scan counted but did not bin
  if (wide_scan()) {
    ScanTotals t{acc.lo, acc.hi, 0, 0};
    i = scan_and_bin_avx512(p, n, inv, bins, local.data(), t);
    acc.lo = t.lo, acc.hi = t.hi, acc.zeros += t.zeros, acc.nonfinite += t.nonfinite;
    wide_zeros = t.zeros;
  }
  for (; i + kBinCopies <= n; i += kBinCopies)
    for (size_t k = 0; k < size_t(kBinCopies); ++k) step(p[i + int64_t(k)], k);
  for (; i < n; ++i) step(p[i], 0);
  ChunkResult r;
  r.stats = acc.result();
  for (int64_t b = 0; b <= bins; ++b) {
    uint64_t c = 0;
    for (int k = 0; k < kBinCopies; ++k) c += local[size_t(k * (bins + 1) + b)];
    if (b == bins) r.overflow = c;
    else counts[size_t(b)] += c;
  }
  counts[0] += wide_zeros;
  return r;
}

}  // namespace

void TensorObserver::observe_all(const std::vector<std::pair<TensorObserver*, const Tensor*>>& items) {
  // The one-pass tasks: every chunk of every tensor whose histogram has a width, in one
  // parallel loop (one barrier for the lot, and work for every thread however the sizes fall).
  struct Task {
    size_t item;
    int64_t begin, n;
  };
  std::vector<Task> tasks;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].first->histograms_ && items[i].first->histogram_.empty()) continue;
    const int64_t n = items[i].second->numel();
    for (int64_t begin = 0; begin < n; begin += kChunk) tasks.push_back({i, begin, std::min(kChunk, n - begin)});
  }
  std::vector<ChunkResult> results(tasks.size());
  std::vector<std::vector<uint64_t>> counts(tasks.size());
  parallel_for(int64_t(tasks.size()), 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const Task& task = tasks[size_t(t)];
      const float* values = items[task.item].second->data<float>() + task.begin;
      if (!items[task.item].first->histograms_) {  // statistics only
        results[size_t(t)].stats = scan(values, task.n);
        continue;
      }
      const AbsHistogram& h = items[task.item].first->histogram_;
      counts[size_t(t)].assign(size_t(h.bins()), 0);
      results[size_t(t)] = scan_and_bin(values, task.n, std::ldexp(1.0f, -h.exponent()), h.bins(), counts[size_t(t)]);
    }
  });
  // Each tensor takes its chunks' sums (integers and exact minima and maxima: the order of the
  // chunks does not matter), or, when the batch needs a wider range or holds NaN/Inf, the two
  // passes.
  std::vector<bool> done(items.size(), false);
  for (size_t t = 0; t < tasks.size();) {
    const size_t item = tasks[t].item;
    TensorObserver& obs = *items[item].first;
    std::vector<uint64_t> sum(obs.histograms_ ? size_t(obs.histogram_.bins()) : 0, 0);
    ChunkStats total;
    uint64_t overflow = 0;
    for (; t < tasks.size() && tasks[t].item == item; ++t) {
      for (size_t b = 0; b < sum.size(); ++b) sum[b] += counts[t][b];
      const ChunkResult& r = results[t];
      total.lo = std::min(total.lo, r.stats.lo), total.hi = std::max(total.hi, r.stats.hi);
      total.zeros += r.stats.zeros, total.nonfinite += r.stats.nonfinite, overflow += r.overflow;
    }
    if (overflow || total.nonfinite) continue;
    done[item] = true;
    if (obs.skip_zeros_ && obs.histograms_) sum[0] -= total.zeros;
    obs.stats_.elements += uint64_t(items[item].second->numel());
    obs.stats_.zeros += total.zeros;
    obs.stats_.min = std::min(obs.stats_.min, double(total.lo));
    obs.stats_.max = std::max(obs.stats_.max, double(total.hi));
    obs.stats_.max_abs = std::max(obs.stats_.max_abs, double(std::max(std::fabs(total.lo), std::fabs(total.hi))));
    if (obs.histograms_) obs.histogram_.add_counts(sum);
  }
  for (size_t i = 0; i < items.size(); ++i)
    if (!done[i] && items[i].second->numel() > 0) items[i].first->observe_in_two_passes(*items[i].second);
}

void TensorObserver::observe(const Tensor& t) { observe_all({{this, &t}}); }

void TensorObserver::observe_in_two_passes(const Tensor& t) {
  const float* p = t.data<float>();
  const int64_t n = t.numel();
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  // Pass 1: statistics, per chunk in parallel.
  std::vector<ChunkStats> parts(size_t(std::max<int64_t>(chunks, 1)));
  parallel_for(chunks, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) parts[size_t(c)] = scan(p + c * kChunk, std::min(kChunk, n - c * kChunk));
  });
  ChunkStats total;
  for (const ChunkStats& s : parts) {
    total.lo = std::min(total.lo, s.lo), total.hi = std::max(total.hi, s.hi);
    total.zeros += s.zeros, total.nonfinite += s.nonfinite;
  }
  // NaN and Inf are counted and set aside (rare: the copy costs nothing when there are none).
  std::vector<float> finite;
  const float* values = p;
  int64_t count = n;
  if (total.nonfinite) {
    finite.reserve(size_t(n));
    for (int64_t i = 0; i < n; ++i) {
      const float v = p[i];
      if (std::isnan(v)) ++stats_.nan;
      else if (std::isinf(v)) ++(v > 0 ? stats_.pos_inf : stats_.neg_inf);
      else finite.push_back(v);
    }
    values = finite.data();
    count = int64_t(finite.size());
  }
  stats_.elements += uint64_t(count);
  stats_.zeros += total.zeros;
  if (count == 0) return;
  stats_.min = std::min(stats_.min, double(total.lo));
  stats_.max = std::max(stats_.max, double(total.hi));
  const float max_abs = std::max(std::fabs(total.lo), std::fabs(total.hi));
  stats_.max_abs = std::max(stats_.max_abs, double(max_abs));
  // Pass 2: the histogram.
  if (!histograms_) return;
  histogram_.prepare(max_abs);
  if (histogram_.empty()) {  // zeros only so far
    if (!skip_zeros_) histogram_.add_zeros(total.zeros);
    return;
  }
  const float inv = std::ldexp(1.0f, -histogram_.exponent());
  const int64_t bins = histogram_.bins();
  const int64_t value_chunks = (count + kChunk - 1) / kChunk;
  std::mutex merge;
  parallel_for(value_chunks, 1, [&](int64_t c0, int64_t c1) {
    std::vector<uint64_t> local(size_t(bins), 0);
    for (int64_t c = c0; c < c1; ++c)
      bin_chunk(values + c * kChunk, std::min(kChunk, count - c * kChunk), inv, bins, !skip_zeros_, local.data());
    std::lock_guard<std::mutex> lock(merge);
    histogram_.add_counts(local);
  });
}

void TensorObserver::merge(const TensorObserver& other) {
  stats_.merge(other.stats_);
  histogram_.merge(other.histogram_);
}

}  // namespace q8
