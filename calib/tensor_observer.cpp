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

// Where an observer's values go: their scales (powers of two, so exact), and how many bins each
// of its one or two histograms has.
struct Binning {
  float pos, neg;  // 1 / width of each histogram (pos = neg for an observer of |x|)
  bool is_signed;  // negative values go to the second histogram
  int64_t bins;
  int64_t histograms() const { return is_signed ? 2 : 1; }
  // v's bin, at most cap (NaN lands there), plus offset for a negative v in a signed observer.
  int64_t bin(float v, int64_t cap, int64_t offset) const {
    const bool negative = v < 0.0f;
    const float scaled = std::fabs(v) * (negative ? neg : pos);
    return int64_t(scaled < float(cap) ? scaled : float(cap)) + (negative && is_signed ? offset : 0);
  }
};

// An empty histogram's scale is never used for a value kept: a batch holding values of its sign
// takes the two passes, which give it a width first.
Binning binning_of(const AbsHistogram& positive, const AbsHistogram& negative, bool is_signed) {
  const auto scale = [](const AbsHistogram& h) { return h.empty() ? 1.0f : std::ldexp(1.0f, -h.exponent()); };
  return {scale(positive), is_signed ? scale(negative) : scale(positive), is_signed, positive.bins()};
}

// Bins each v (all inside the histograms' range) into four interleaved count arrays, which breaks
// the store-to-load chains of repeated bins, then folds them into counts (bins per histogram,
// the positive one first).
void bin_chunk(const float* p, int64_t n, const Binning& binning, bool count_zeros, uint64_t* counts) {
  const int64_t size = binning.histograms() * binning.bins, last = binning.bins - 1;
  std::vector<uint32_t> local(size_t(4 * size), 0);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int k = 0; k < 4; ++k) ++local[size_t(k * size + binning.bin(p[i + k], last, binning.bins))];
  for (; i < n; ++i) ++local[size_t(binning.bin(p[i], last, binning.bins))];
  for (int64_t b = 0; b < size; ++b)
    counts[b] += uint64_t(local[size_t(b)]) + local[size_t(size + b)] + local[size_t(2 * size + b)] + local[size_t(3 * size + b)];
  if (!count_zeros) {  // zeros all landed in bin 0; take them back out
    uint64_t zeros = 0;
    for (int64_t j = 0; j < n; ++j) zeros += p[j] == 0.0f;
    counts[0] -= zeros;
  }
}

// One pass for the common case — the histograms have a width and the batch fits it: statistics
// and bins together. Values at or past the top of the range (and NaN, ±Inf) land in an extra
// bucket; if any do, the caller takes the two-pass path instead. counts[h] holds histogram h's
// bins up to that of its largest value (no bin above can be non-zero: |v| · scale is monotone in
// |v|), which keeps a chunk's fixed cost to the range its values cover.
struct ChunkResult {
  ChunkStats stats;
  uint64_t overflow = 0;
  std::array<std::vector<uint32_t>, 2> counts;
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

// This thread's copies: all zero between chunks, as each chunk clears the bins it used.
uint16_t* zeroed_copies(int64_t size) {
  thread_local std::vector<uint16_t> copies;
  if (copies.size() < size_t(size)) copies.assign(size_t(size), 0);
  return copies.data();
}

ChunkResult scan_and_bin(const float* p, int64_t n, const Binning& binning) {
  // Each copy holds each histogram's bins and then its top bin, where values past the range go.
  const int64_t bins = binning.bins, stride = binning.histograms() * (bins + 1);
  uint16_t* local = zeroed_copies(kBinCopies * stride);
  const BinScales scales{binning.pos, binning.neg, binning.is_signed ? bins + 1 : 0};
  StatsAccumulator acc;
  auto step = [&](float v, int64_t lane) {
    acc.add(v);
    ++local[lane * stride + binning.bin(v, bins, scales.neg_offset)];  // NaN and Inf fall to the top
  };
  int64_t i = 0;
  uint64_t wide_zeros = 0;  // zeros the wide scan counted but did not bin
  if (wide_scan()) {
    ScanTotals t{acc.lo, acc.hi, 0, 0};
    i = scan_and_bin_avx512(p, n, scales, bins, stride, local, t);
    acc.lo = t.lo, acc.hi = t.hi, acc.zeros += t.zeros, acc.nonfinite += t.nonfinite;
    wide_zeros = t.zeros;
  }
  for (; i + kBinCopies <= n; i += kBinCopies)
    for (int64_t k = 0; k < kBinCopies; ++k) step(p[i + k], k);
  for (; i < n; ++i) step(p[i], 0);
  ChunkResult r;
  r.stats = acc.result();
  // The largest value of each histogram's sign (lo and hi are ±Inf where the wide scan met ±Inf,
  // and for a chunk without finite values: then every bin).
  const float largest[2] = {binning.is_signed ? std::max(acc.hi, 0.0f) : std::max(std::fabs(acc.lo), std::fabs(acc.hi)),
                            std::max(-acc.lo, 0.0f)};
  for (int64_t h = 0; h < binning.histograms(); ++h) {
    const float scaled = largest[h] * (h ? binning.neg : binning.pos);
    const int64_t used = scaled < float(bins) ? int64_t(scaled) + 1 : bins;
    std::vector<uint32_t>& counts = r.counts[size_t(h)];
    counts.assign(size_t(used), 0);
    for (int64_t k = 0; k < kBinCopies; ++k) {
      uint16_t* copy = local + k * stride + h * (bins + 1);
      for (int64_t b = 0; b < used; ++b) counts[size_t(b)] += copy[b];
      r.overflow += copy[bins];
      std::fill(copy, copy + used, uint16_t(0));
      copy[bins] = 0;
    }
  }
  r.counts[0][0] += uint32_t(wide_zeros);
  return r;
}

}  // namespace

TensorObserver TensorObserver::signed_split(int64_t bins, bool skip_zeros) {
  TensorObserver obs(bins, skip_zeros);
  obs.negative_ = AbsHistogram(bins);
  obs.signed_ = true;
  return obs;
}

void TensorObserver::observe_all(const std::vector<std::pair<TensorObserver*, const Tensor*>>& items) {
  // The one-pass tasks: every chunk of every tensor whose histogram has a width (a signed
  // observer: either of its two), in one parallel loop (one barrier for the lot, and work for
  // every thread however the sizes fall).
  struct Task {
    size_t item;
    int64_t begin, n;
  };
  std::vector<Task> tasks;
  for (size_t i = 0; i < items.size(); ++i) {
    const TensorObserver& obs = *items[i].first;
    if (obs.histograms_ && obs.histogram_.empty() && (!obs.signed_ || obs.negative_.empty())) continue;
    const int64_t n = items[i].second->numel();
    for (int64_t begin = 0; begin < n; begin += kChunk) tasks.push_back({i, begin, std::min(kChunk, n - begin)});
  }
  std::vector<ChunkResult> results(tasks.size());
  parallel_for(int64_t(tasks.size()), 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const Task& task = tasks[size_t(t)];
      const TensorObserver& obs = *items[task.item].first;
      const float* values = items[task.item].second->data<float>() + task.begin;
      if (!obs.histograms_) results[size_t(t)].stats = scan(values, task.n);  // statistics only
      else results[size_t(t)] = scan_and_bin(values, task.n, binning_of(obs.histogram_, obs.negative_, obs.signed_));
    }
  });
  // Each tensor takes its chunks' sums (integers and exact minima and maxima: the order of the
  // chunks does not matter), or, when the batch needs a wider range, holds NaN/Inf, or (signed)
  // holds values of a sign whose histogram has no width yet, the two passes.
  std::vector<bool> done(items.size(), false);
  for (size_t t = 0; t < tasks.size();) {
    const size_t item = tasks[t].item, first = t;
    TensorObserver& obs = *items[item].first;
    ChunkStats total;
    uint64_t overflow = 0;
    for (; t < tasks.size() && tasks[t].item == item; ++t) {
      const ChunkResult& r = results[t];
      total.lo = std::min(total.lo, r.stats.lo), total.hi = std::max(total.hi, r.stats.hi);
      total.zeros += r.stats.zeros, total.nonfinite += r.stats.nonfinite, overflow += r.overflow;
    }
    if (overflow || total.nonfinite) continue;
    if (obs.signed_ && ((obs.histogram_.empty() && total.hi > 0) || (obs.negative_.empty() && total.lo < 0))) continue;
    done[item] = true;
    obs.stats_.elements += uint64_t(items[item].second->numel());
    obs.stats_.zeros += total.zeros;
    obs.stats_.min = std::min(obs.stats_.min, double(total.lo));
    obs.stats_.max = std::max(obs.stats_.max, double(total.hi));
    obs.stats_.max_abs = std::max(obs.stats_.max_abs, double(std::max(std::fabs(total.lo), std::fabs(total.hi))));
    if (!obs.histograms_) continue;
    for (size_t c = first; c < t; ++c) {
      ChunkResult& r = results[c];
      if (obs.skip_zeros_ || obs.signed_) r.counts[0][0] -= uint32_t(r.stats.zeros);  // zeros all landed in bin 0
      obs.histogram_.add_counts(r.counts[0]);
      if (obs.signed_) obs.negative_.add_counts(r.counts[1]);
    }
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
  // Pass 2: the histograms.
  if (!histograms_) return;
  if (signed_) {  // zeros stay in the statistics alone
    histogram_.prepare(total.hi);
    negative_.prepare(-total.lo);
    if (histogram_.empty() && negative_.empty()) return;
  } else {
    histogram_.prepare(max_abs);
    if (histogram_.empty()) {  // zeros only so far
      if (!skip_zeros_) histogram_.add_zeros(total.zeros);
      return;
    }
  }
  const Binning binning = binning_of(histogram_, negative_, signed_);
  const size_t size = size_t(binning.histograms() * binning.bins);
  const int64_t value_chunks = (count + kChunk - 1) / kChunk;
  std::mutex merge;
  parallel_for(value_chunks, 1, [&](int64_t c0, int64_t c1) {
    std::vector<uint64_t> local(size, 0);
    for (int64_t c = c0; c < c1; ++c)
      bin_chunk(values + c * kChunk, std::min(kChunk, count - c * kChunk), binning, !skip_zeros_ && !signed_, local.data());
    std::lock_guard<std::mutex> lock(merge);
    histogram_.add_counts(local);
    if (signed_) negative_.add_counts(local, size_t(binning.bins));
  });
}

TensorObserver TensorObserver::unsigned_part() const {
  TensorObserver out(histogram_.bins(), skip_zeros_);
  out.stats_ = stats_;
  out.histogram_ = histogram_;
  out.histogram_.merge(negative_);  // the finer of the two widths coarsened to the other's
  if (!skip_zeros_) out.histogram_.add_zeros(stats_.zeros);
  return out;
}

TensorObserver TensorObserver::relu_part() const {
  // Relu(x) = x > 0 ? x : 0: x's positive finite values and +Inf, and a zero for each other value.
  uint64_t positives = 0, negatives = 0;
  for (uint64_t c : histogram_.counts()) positives += c;
  for (uint64_t c : negative_.counts()) negatives += c;
  const uint64_t zeros = stats_.zeros + negatives + stats_.nan + stats_.neg_inf;
  TensorObserver out(histogram_.bins(), skip_zeros_);
  TensorStats& s = out.stats_;
  s.elements = positives + zeros, s.zeros = zeros, s.pos_inf = stats_.pos_inf;
  if (zeros) s.min = 0.0;
  else if (positives) s.min = stats_.min;  // every finite value is positive
  if (positives) s.max = s.max_abs = stats_.max;
  else if (zeros) s.max = 0.0;
  out.histogram_ = histogram_;
  if (!skip_zeros_) out.histogram_.add_zeros(zeros);
  return out;
}

void TensorObserver::merge(const TensorObserver& other) {
  check(!signed_ && !other.signed_, "a signed observer merges only through its unsigned and Relu parts");
  stats_.merge(other.stats_);
  histogram_.merge(other.histogram_);
}

}  // namespace q8
