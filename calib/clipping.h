// How much of a tensor a threshold clips, and the calibration warnings built on it: a tensor
// whose amax clips more than a limit of its non-zero values, or any value of a graph input, is
// named with the fraction and the methods that would clip less (docs/calibration.md, "Clipping").
#pragma once

#include <string>
#include <vector>

#include "calib/calibrator.h"

namespace q8 {

// Default limit on the fraction of non-zero values a threshold may clip without a warning.
inline constexpr double kClipWarningLimit = 1e-3;

// Fraction of the non-zero finite values that saturate: |x| >= amax · (1 + 1/254), the values
// whose round(|x| / scale) would exceed 127 (less than half a step above amax rounds to 127
// anyway). Estimated from the histogram: bins wholly above count fully, the bin holding the
// bound in proportion. 0 when amax >= max_abs.
double clipped_fraction(const AbsHistogram& h, const TensorStats& stats, double amax);

struct ClipAlternative {
  std::string method;
  double amax = 0, fraction = 0;
};

struct ClipWarning {
  std::string tensor;
  bool graph_input = false;
  std::string method;
  double amax = 0, max_abs = 0, fraction = 0;
  std::vector<ClipAlternative> alternatives;  // the other methods that clip at most the limit
};

// Every tensor of the table that clips more than `limit` of its non-zero values, and every graph
// input that clips anything; worst first.
std::vector<ClipWarning> clipping_warnings(const Calibrator& calibrator, const RangeTable& table, const Graph& graph,
                                           const MethodOptions& options, double limit);

// "input 'x' clips 30.1 % of its non-zero values at amax 0.81 (entropy; max |x| 2.02); max 2.02 clips none, mse 1.98 clips 0.001 %".
std::string describe(const ClipWarning& w);

}  // namespace q8
