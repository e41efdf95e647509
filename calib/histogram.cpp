#include "calib/histogram.h"

#include <cmath>

#include "engine/ir/error.h"

namespace q8 {

namespace {
constexpr int kMinExponent = -149;  // the smallest float subnormal
}

AbsHistogram::AbsHistogram(int64_t bins) : counts_(size_t(bins), 0) {
  check(bins >= 2 && (bins & (bins - 1)) == 0, "histogram bins must be a power of two >= 2, got " + std::to_string(bins));
}

double AbsHistogram::width() const { return std::ldexp(1.0, exponent_); }

int64_t AbsHistogram::used_bins() const {
  for (int64_t i = bins(); i > 0; --i)
    if (counts_[size_t(i - 1)]) return i;
  return 0;
}

int AbsHistogram::exponent_for(double max_abs) const {
  // max_abs < bins · 2^e  ⇔  e > log2(max_abs / bins); found by frexp, then corrected.
  int e = kMinExponent;
  if (max_abs > 0) {
    int exp2;
    std::frexp(max_abs / double(bins()), &exp2);  // max_abs / bins = m · 2^exp2, m in [0.5, 1)
    e = std::max(kMinExponent, exp2 - 1);
    while (max_abs >= double(bins()) * std::ldexp(1.0, e)) ++e;
    while (e > kMinExponent && max_abs < double(bins()) * std::ldexp(1.0, e - 1)) --e;
  }
  return e;
}

void AbsHistogram::coarsen_to(int exponent) {
  while (exponent_ < exponent) {
    const size_t n = counts_.size();
    for (size_t j = 0; j < n / 2; ++j) counts_[j] = counts_[2 * j] + counts_[2 * j + 1];
    std::fill(counts_.begin() + long(n / 2), counts_.end(), 0);
    ++exponent_;
  }
}

void AbsHistogram::prepare(float max_abs) {
  if (max_abs <= 0) return;
  const int e = exponent_for(max_abs);
  if (!has_width_) exponent_ = e, has_width_ = true;
  else if (e > exponent_) coarsen_to(e);
}

void AbsHistogram::add_counts(const std::vector<uint64_t>& counts, size_t first) {
  if (first + counts_.size() > counts.size())
    throw Error("histogram counts: " + std::to_string(counts.size()) + " given, " + std::to_string(first + counts_.size()) + " needed");
  for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += counts[first + i];
}

void AbsHistogram::add_counts(const std::vector<uint32_t>& counts) {
  if (counts.size() > counts_.size())
    throw Error(std::to_string(counts.size()) + " counts for a histogram of " + std::to_string(counts_.size()) + " bins");
  for (size_t i = 0; i < counts.size(); ++i) counts_[i] += counts[i];
}

void AbsHistogram::merge(const AbsHistogram& other) {
  check(other.bins() == bins(), "cannot merge histograms of " + std::to_string(other.bins()) + " and " +
                                    std::to_string(bins()) + " bins");
  if (!other.has_width_) {
    counts_[0] += other.counts_[0];
    return;
  }
  AbsHistogram coarse = other;
  if (!has_width_) {
    const uint64_t zeros = counts_[0];
    *this = coarse;
    counts_[0] += zeros;
    return;
  }
  if (coarse.exponent_ < exponent_) coarse.coarsen_to(exponent_);
  else coarsen_to(coarse.exponent_);
  for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += coarse.counts_[i];
}

void AbsHistogram::assign(bool has_width, int exponent, std::vector<uint64_t> counts) {
  check(counts.size() == counts_.size(), "histogram has " + std::to_string(counts.size()) + " bins, expected " +
                                             std::to_string(counts_.size()));
  for (size_t i = 1; i < counts.size() && !has_width; ++i) check(counts[i] == 0, "a histogram without a width holds non-zero values");
  counts_ = std::move(counts);
  exponent_ = has_width ? exponent : 0;
  has_width_ = has_width;
}

}  // namespace q8
