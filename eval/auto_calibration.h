// q8 calibrate --method auto after the data has been observed (docs/calibration.md, "Choosing the
// method by the outputs"): the method chosen on the graph as calibrated; when that collapses (its
// lowest output cosine under kCollapseCosine), the data again through the equalized graph and the
// choice there, kept when it wins. The CLI and the Python module both call it.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "calib/session.h"
#include "eval/method_choice.h"

namespace q8 {

struct AutoCalibrationOptions {
  int64_t samples = kDefaultAutoSamples;  // --auto-samples
  // Why the equalized graph may not be calibrated here ("" when it may): a TensorRT cache, resumed
  // or merged histograms, an MPI job, a graph already equalized.
  std::string why_not_equalized;
  int streams = 1;                                // batches at once, for the equalized run
  const std::atomic<bool>* interrupt = nullptr;   // stops the equalized run between batches
};

// Chooses the method on `session` (and the equalized graph where it collapses and may be tried),
// prints each round (log::info) and tells `session`, or the equalized session returned (which then
// holds the run to write), which method to calibrate by. When the methods cannot be compared (the
// outputs are not float32, the data cannot be read again), warns and leaves kDefaultMethod.
std::unique_ptr<CalibrationSession> choose_method_by_outputs(CalibrationSession& session, const AutoCalibrationOptions& options);

}  // namespace q8
