// A histogram of |x| with power-of-two bin width, whose counts do not depend on the order or
// batching of the values it saw, and which merges exactly (docs/calibration.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace q8 {

// The default bin count: the last non-empty bin lies in [B/2, B), so every threshold search sees
// at least 2,049 bins of data — TensorRT's 2,048-bin resolution or finer (docs/calibration.md).
inline constexpr int64_t kDefaultHistogramBins = 4096;

class AbsHistogram {
 public:
  explicit AbsHistogram(int64_t bins = kDefaultHistogramBins);

  int64_t bins() const { return int64_t(counts_.size()); }
  // Bin width 2^exponent; meaningful once a non-zero value was added.
  int exponent() const { return exponent_; }
  double width() const;
  bool empty() const { return !has_width_; }
  const std::vector<uint64_t>& counts() const { return counts_; }
  // Bins up to the last non-empty one.
  int64_t used_bins() const;

  // Filling it, in two steps so observers can bin in parallel: make room for values up to
  // max_abs (coarsening as needed), then add counts made at the current width (or, while no
  // width exists, zeros to bin 0).
  void prepare(float max_abs);
  // Adds counts[first + i] to bin i (counts holding bins() of them from `first`).
  void add_counts(const std::vector<uint64_t>& counts, size_t first = 0);
  // Adds counts[i] to bin i; counts may stop short of the last bin.
  void add_counts(const std::vector<uint32_t>& counts);
  void add_zeros(uint64_t zeros) { counts_[0] += zeros; }
  // Adds other's counts (coarsening whichever is finer). Bin counts must agree.
  void merge(const AbsHistogram& other);
  // Sets state directly (for files read back); the width rule is the caller's to respect.
  // Without a width only bin 0 (zeros) may be non-zero.
  void assign(bool has_width, int exponent, std::vector<uint64_t> counts);

 private:
  // Smallest exponent e with max_abs < bins · 2^e.
  int exponent_for(double max_abs) const;
  void coarsen_to(int exponent);

  std::vector<uint64_t> counts_;
  int exponent_ = 0;
  bool has_width_ = false;
};

}  // namespace q8
