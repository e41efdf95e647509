// Calibration throughput and peak memory for one configuration, run in its own process so the
// peak RSS is this configuration's alone. bench/run_calibration.sh runs the set.
//
//   calibration_throughput --model M --data D [--limit N] [--batch-size B] [--method M] [--plain] [--json OUT]
//
// --plain runs the same batches through the FP32 executor without observers: the baseline for
// the observers' cost.
#include <CLI/CLI.hpp>

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <sstream>

#include "calib/calibration_run.h"
#include "datasets/model_inputs.h"
#include "engine/cpu/threads.h"
#include "engine/io/atomic_write.h"
#include "engine/onnx/import.h"

using namespace q8;

int main(int argc, char** argv) {
  CLI::App app{"calibration throughput and peak RSS"};
  std::string model, data, method = "entropy", json, name;
  int64_t limit = 0, batch = 0;
  bool plain = false;
  app.add_option("--model", model)->required();
  app.add_option("--data", data)->required();
  app.add_option("--limit", limit);
  app.add_option("--batch-size", batch, "0: as q8 calibrate picks it (calibration_batch_size)")->capture_default_str();
  app.add_option("--method", method)->capture_default_str();
  app.add_option("--name", name);
  app.add_option("--json", json);
  app.add_flag("--plain", plain, "FP32 inference only, no observers");
  int threads = 0, streams = 0;
  app.add_option("--threads", threads, "compute threads (0: one per core)");
  app.add_option("--streams", streams, "batches at once, compute threads split between them (0: one per thread)")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    if (threads > 0) set_compute_threads(threads);
    else use_threads_beside_a_reader();
    const Graph graph = load_model(model);
    Preprocessing pre;
    BatchStreamOptions options;
    const std::vector<StreamInput> inputs = open_model_inputs(graph, data, pre, {});
    if (batch == 0) batch = calibration_batch_size(inputs);
    options.batch_size = batch, options.limit = limit;
    BatchStream stream(inputs, pre, options);
    // As q8 calibrate: `max` alone keeps statistics only.
    Calibrator calibrator(graph, {kDefaultHistogramBins, false, method != "max"});
    const auto start = std::chrono::steady_clock::now();
    double finalize_seconds = 0;
    streams = calibration_streams(streams);
    Progress progress("calibrating", stream.total(), true);
    std::atomic<bool> never{false};
    // Plain inference runs the same batches through the same streams of executors.
    const int64_t samples = run_calibration(graph, calibrator, stream, progress, never, {streams, !plain}).samples;
    if (!plain) {
      const auto t0 = std::chrono::steady_clock::now();
      MethodChoice choice;
      choice.default_method = method;
      calibrator.finalize(graph, choice);
      finalize_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const double rss_mb = double(usage.ru_maxrss) / 1024.0;
    const std::string mode = plain ? "plain FP32" : "calibrate " + method;
    std::printf("%-14s %-20s threads %2d streams %2d batch %2lld %6lld samples  %8.1f samples/s  (%.2f s of it finalizing)  peak RSS %7.1f MiB\n", name.c_str(),
                mode.c_str(), compute_threads(), streams, static_cast<long long>(batch), static_cast<long long>(samples), double(samples) / seconds, finalize_seconds, rss_mb);
    if (!json.empty()) {
      std::ostringstream j;
      j << "{\"benchmark\": \"calibration_throughput\", \"name\": \"" << name << "\", \"mode\": \"" << mode
        << "\", \"samples\": " << samples << ", \"batch_size\": " << batch << ", \"threads\": " << compute_threads() << ", \"streams\": " << streams << ", \"seconds\": " << seconds
        << ", \"finalize_seconds\": " << finalize_seconds << ", \"samples_per_second\": " << double(samples) / seconds << ", \"peak_rss_mib\": " << rss_mb << "}\n";
      write_file_atomically(json, j.str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "calibration_throughput: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
