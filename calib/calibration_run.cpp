#include "calib/calibration_run.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/cpu/threads.h"

namespace q8 {

int calibration_streams(int requested) { return requested > 0 ? requested : compute_threads(); }

int64_t calibration_batch_size(const std::vector<StreamInput>& inputs) {
  int64_t bytes = 0;
  for (const auto& in : inputs) bytes += numel(in.spec.sample_dims) * int64_t(dtype_size(in.spec.dtype));
  return std::clamp<int64_t>(kAutoBatchBytes / std::max<int64_t>(1, bytes), 1, kMaxAutoBatch);
}

CalibrationRunResult run_calibration(const Graph& graph, Calibrator& calibrator, BatchSource& stream, Progress& progress,
                                     const std::atomic<bool>& interrupt, const CalibrationRunOptions& options) {
  CalibrationRunResult result;
  const auto start = std::chrono::steady_clock::now();
  const int streams = std::max(1, options.streams);
  const int threads_per_stream = std::max(1, compute_threads() / streams);
  std::mutex taking;  // the stream, the progress and the totals
  std::exception_ptr error;
  std::atomic<bool> stop{false};
  // One stream: an executor and the calibrator's own observers. Takes batches until the end,
  // an interrupt or another stream's error.
  auto run_stream = [&](Calibrator& observers) {
    try {
      Executor exec(graph);
      if (options.observe) observers.attach(exec);
      while (!interrupt && !stop) {
        std::optional<Batch> batch;
        {
          std::lock_guard<std::mutex> lock(taking);
          batch = stream.next();
        }
        if (!batch) break;
        if (options.observe) observers.observe_inputs(batch->inputs);
        exec.run(batch->inputs);
        std::lock_guard<std::mutex> lock(taking);
        result.samples += batch->count;
        result.positions = std::max(result.positions, batch->position);
        progress.update(result.positions);
      }
      observers.settle();
    } catch (...) {
      std::lock_guard<std::mutex> lock(taking);
      if (!error) error = std::current_exception();
      stop = true;
    }
  };
  if (streams == 1) {
    run_stream(calibrator);
  } else {
    // Every stream's observers exist before any thread starts: a thread must not read the vector
    // while it grows.
    std::vector<std::unique_ptr<Calibrator>> observers;
    for (int s = 0; s < streams; ++s) observers.push_back(std::make_unique<Calibrator>(graph, calibrator.options()));
    std::vector<std::thread> workers;
    for (int s = 0; s < streams; ++s)
      workers.emplace_back([&, s] {
        set_compute_threads(threads_per_stream);  // this thread's OpenMP team
        run_stream(*observers[size_t(s)]);
      });
    for (std::thread& w : workers) w.join();
    if (!error)
      for (const auto& o : observers) calibrator.merge(o->observers()), calibrator.merge_channels(o->channel_amax());
  }
  if (error) std::rethrow_exception(error);
  result.interrupted = interrupt;
  progress.finish();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace q8
