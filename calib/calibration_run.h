// The calibration loop: batches through the FP32 executor with observers attached, progress,
// and a clean stop when interrupted.
#pragma once

#include <atomic>
#include <vector>

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

// How many batches run at once (trtexec's --streams): 0 picks one stream per compute thread.
int calibration_streams(int requested);

// Samples per batch when none is asked for: as many as fit kAutoBatchBytes of model input, 1 to
// kMaxAutoBatch. A sample's arithmetic does not depend on its batch, so the batch only trades the
// per-node overhead of small ones against tensors that leave the cache in large ones
// (docs/calibration.md, "Batch size").
inline constexpr int64_t kAutoBatchBytes = int64_t(1) << 20, kMaxAutoBatch = 32;
int64_t calibration_batch_size(const std::vector<StreamInput>& inputs);

struct CalibrationRunOptions {
  int streams = 1;
  bool observe = true;  // false: the same batches through the same executors, no observers (a baseline)
};

// Runs every batch of stream through the graph with calibrator's observers, stopping between
// batches once `interrupt` is set. With streams > 1, that many executors (each with its own
// observers and compute_threads() / streams threads) take batches in turn, and their observers
// merge into calibrator at the end: the same histograms and statistics, which depend only on
// the multiset of values (docs/calibration.md). Every batch taken is finished, so the samples
// observed are always the first `positions` of the stream's order.
CalibrationRunResult run_calibration(const Graph& graph, Calibrator& calibrator, BatchSource& stream, Progress& progress,
                                     const std::atomic<bool>& interrupt, const CalibrationRunOptions& options = {});

}  // namespace q8
