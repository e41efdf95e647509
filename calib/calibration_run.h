// The calibration loop: batches through the FP32 executor with observers attached, progress,
// and a clean stop when interrupted.
#pragma once

#include <atomic>

#include "calib/calibrator.h"
#include "datasets/batch_stream.h"
#include "datasets/progress.h"

namespace q8 {

struct CalibrationRunResult {
  int64_t samples = 0;    // samples observed in this run
  int64_t positions = 0;  // samples of the stream's order consumed (corrupt ones included)
  bool interrupted = false;
  double seconds = 0;
};

// Runs every batch of stream through exec (to which calibrator is attached), stopping between
// batches once `interrupt` is set.
CalibrationRunResult run_calibration(Executor& exec, Calibrator& calibrator, BatchStream& stream, Progress& progress,
                                     const std::atomic<bool>& interrupt);

}  // namespace q8
