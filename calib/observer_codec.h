// An observer as the parts histogram files and MPI messages carry, and back: the one place both
// turn an observer into its statistics, width and counts, and those into an observer after
// checking them against the rules the writer follows (docs/calibration.md, "Histogram files").
#pragma once

#include <string>
#include <vector>

#include "calib/tensor_observer.h"

namespace q8 {

struct ObserverParts {
  TensorStats stats;
  bool has_width = false;   // a histogram with a bin width (max_abs > 0)
  int64_t exponent = 0;     // the bin width is 2^exponent
  std::vector<uint64_t> counts;
};

ObserverParts observer_parts(const TensorObserver& observer);

// The observer the parts describe, after checking them: counts sum to the values observed (the
// zeros left out under skip_zeros), the width is the one max_abs calls for, the statistics are
// finite and consistent. An Error names `what` and the rule broken.
TensorObserver observer_from_parts(ObserverParts parts, bool skip_zeros, const std::string& what);

}  // namespace q8
