#include "calib/calibration_run.h"

#include <chrono>

namespace q8 {

CalibrationRunResult run_calibration(Executor& exec, Calibrator& calibrator, BatchStream& stream, Progress& progress,
                                     const std::atomic<bool>& interrupt) {
  CalibrationRunResult result;
  const auto start = std::chrono::steady_clock::now();
  calibrator.attach(exec);
  while (!interrupt) {
    std::optional<Batch> batch = stream.next();
    if (!batch) break;
    calibrator.observe_inputs(batch->inputs);
    exec.run(batch->inputs);
    calibrator.flush();
    result.samples += batch->count;
    result.positions = batch->position;
    progress.update(batch->position);
  }
  exec.set_hook(nullptr);
  result.interrupted = interrupt;
  progress.finish();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace q8
