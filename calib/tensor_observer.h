// What calibration keeps of one tensor across every batch: statistics and an |x| histogram.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "calib/histogram.h"
#include "engine/ir/tensor.h"

namespace q8 {

struct TensorStats {
  uint64_t elements = 0;  // finite values seen
  uint64_t zeros = 0;
  uint64_t nan = 0, pos_inf = 0, neg_inf = 0;
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  double max_abs = 0;

  uint64_t nonzero() const { return elements - std::min(elements, zeros); }

  void merge(const TensorStats& other);
};

class TensorObserver {
 public:
  // histograms false: statistics only (what `max` reads), the histogram left empty.
  TensorObserver(int64_t bins, bool skip_zeros, bool histograms = true)
      : histogram_(bins), skip_zeros_(skip_zeros), histograms_(histograms) {}
  // A signed observer, for a Relu's input (docs/calibration.md, "Relu outputs and reshaped
  // tensors"): histogram() holds the positive finite values and a second histogram the magnitudes
  // of the negative ones, each at the width its own largest value calls for, zeros in neither. Its
  // two parts below are what observing x and Relu(x) directly makes, count for count.
  static TensorObserver signed_split(int64_t bins, bool skip_zeros);
  TensorObserver unsigned_part() const;
  TensorObserver relu_part() const;

  // Updates from one float32 tensor (any shape). Nothing of it is kept.
  void observe(const Tensor& t);
  // Updates each observer from its tensor, all in one parallel loop over the tensors' chunks (an
  // observer appears at most once). The same result as observing them one by one.
  static void observe_all(const std::vector<std::pair<TensorObserver*, const Tensor*>>& items);
  void merge(const TensorObserver& other);

  const TensorStats& stats() const { return stats_; }
  const AbsHistogram& histogram() const { return histogram_; }
  bool skip_zeros() const { return skip_zeros_; }
  void assign(const TensorStats& stats, const AbsHistogram& histogram) { stats_ = stats, histogram_ = histogram; }

 private:
  // The path for a batch that needs a wider range or holds NaN/Inf (observe_all takes the
  // others in one pass): statistics first, then the histogram at the width they call for.
  void observe_in_two_passes(const Tensor& t);

  TensorStats stats_;
  AbsHistogram histogram_;
  AbsHistogram negative_{2};  // a signed observer's negative values (sized by signed_split)
  bool skip_zeros_;
  bool histograms_;
  bool signed_ = false;
};

}  // namespace q8
