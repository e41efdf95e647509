// q8 calibrate MODEL --data PATH --method M --cache FILE [--json FILE] [--histograms FILE.h5]:
// streams a dataset through the FP32 graph and writes calibration data (docs/calibration.md).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>

#include "calib/calibration_run.h"
#include "calib/session.h"
#include "calib/clipping.h"
#include "calib/hdf5_histograms.h"
#include "calib/json_table.h"
#include "calib/trt_cache.h"
#include "datasets/model_inputs.h"
#include "engine/cpu/threads.h"
#include "engine/io/atomic_write.h"
#include "engine/io/log.h"
#include "engine/io/sha256.h"
#include "engine/onnx/import.h"
#include "eval/auto_calibration.h"
#include "tools/q8/commands.h"
#include "tools/q8/dataset_options.h"
#include "tools/q8/mpi_world.h"
#include "tools/q8/tensor_args.h"
#include "tools/q8/validators.h"

namespace q8::cli {

namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_interrupt(int) { g_interrupted = true; }

struct CalibrateOptions {
  std::string model;
  DatasetOptions d;
  std::string method = kDefaultCalibrateMethod;
  double clip_limit = kClipWarningLimit;
  double percentile = MethodOptions{}.percentile;
  int64_t bins = kDefaultHistogramBins;
  bool skip_zeros = false;
  std::vector<std::string> overrides;
  std::string cache, json, histograms, resume;
  std::vector<std::string> merge;
  std::string trt_version = kDefaultTrtVersion;
  bool force = false;
  bool equalize = false;
  int streams = 0;
  int64_t auto_samples = kDefaultAutoSamples;
  bool method_given = false;  // --method on the command line (else the default)
};

MethodChoice method_choice(const CalibrateOptions& o) {
  MethodChoice choice;
  // auto observes for every method and calibrates by the default until it has chosen.
  choice.default_method = o.method == kAutoMethod ? kDefaultMethod : o.method;
  choice.options.percentile = o.percentile;
  for (const auto& [name, method] : parse_assignments(o.overrides, "--override", "NAME_OR_OPTYPE=METHOD")) {
    check_argument(find_method(method) != nullptr, "--override " + name + "=" + method + ": unknown method (methods: " + method_names() + ")");
    choice.overrides[name] = method;
  }
  check_argument(o.method == kAutoMethod || find_method(o.method) != nullptr,
                 "--method " + o.method + ": unknown method (methods: " + method_names() + ", or auto)");
  return choice;
}

// Lists the tensors whose threshold clips too much (worst first, ten at most); with --strict
// that is an error and nothing is written.
void report_clipping(const std::vector<ClipWarning>& warnings, double limit, bool strict) {
  if (warnings.empty()) return;
  char head[160];
  std::snprintf(head, sizeof head, "%zu tensors clip more than %.3g %% of their non-zero values (or clip a graph input)",
                warnings.size(), 100 * limit);
  if (strict) throw Error(std::string(head) + " (--strict); the worst: " + describe(warnings[0]));
  log::warn("%s; the fraction of each is in the JSON table (\"clipped\"):\n", head);
  for (size_t i = 0; i < warnings.size() && i < 10; ++i) log::warn("  %s\n", describe(warnings[i]).c_str());
  if (warnings.size() > 10) log::warn("  ... and %zu more\n", warnings.size() - 10);
}

// Every output path is one a file can be written to, differs from the others and from every input.
void check_output_paths(const CalibrateOptions& o) {
  namespace fs = std::filesystem;
  const auto canonical = [](const std::string& p) { return fs::weakly_canonical(fs::absolute(p)).string(); };
  std::vector<std::pair<std::string, std::string>> outputs;  // (flag, path)
  for (const auto& [flag, path] : {std::pair<const char*, const std::string*>{"--cache", &o.cache}, {"--json", &o.json},
                                   {"--histograms", &o.histograms}})
    if (!path->empty()) outputs.emplace_back(flag, *path);
  std::vector<std::pair<std::string, std::string>> inputs = {{"the model", o.model}};
  if (!o.d.data.empty()) inputs.emplace_back("--data", o.d.data);
  if (!o.resume.empty()) inputs.emplace_back("--resume", o.resume);
  for (const auto& m : o.merge) inputs.emplace_back("--merge", m);
  for (size_t i = 0; i < outputs.size(); ++i) {
    check_output_file(outputs[i].first, outputs[i].second, inputs);
    for (size_t j = i + 1; j < outputs.size(); ++j)
      check_argument(canonical(outputs[i].second) != canonical(outputs[j].second),
            outputs[i].first + " and " + outputs[j].first + " are the same file " + outputs[i].second);
  }
}

// The session's settings from the flags.
SessionOptions session_options(const CalibrateOptions& o, const MethodChoice& choice, const MpiWorld& world) {
  SessionOptions s;
  s.model = o.model, s.data = o.d.data, s.pre = o.d.pre, s.source = o.d.source, s.stream = o.d.stream;
  s.stream.shard = world.rank(), s.stream.shards = world.size();
  s.asked_batch = o.d.asked_batch_size();
  s.choice = choice, s.bins = o.bins, s.skip_zeros = o.skip_zeros;
  // `max` reads statistics only: without other methods, or histograms to write, resume or merge,
  // the observers keep no histogram.
  s.keep_histograms = o.method != "max" || !choice.overrides.empty() || !o.histograms.empty() || !o.resume.empty() || !o.merge.empty();
  s.resume = o.resume, s.merge = o.merge, s.force = o.force, s.equalize = o.equalize;
  return s;
}

void print_settings(CalibrationSession& session, const CalibrateOptions& o, const MpiWorld& world, int streams) {
  const Graph& graph = session.graph();
  log::info("=== q8 calibrate ===\nmodel:         %s (opset %lld, sha256 %.12s…)\n", o.model.c_str(),
            static_cast<long long>(graph.opset()), session.model_sha256().c_str());
  if (BatchStream* stream = session.stream()) {
    for (const auto& in : session.inputs())
      log::info("input:         %s %s, sample %s, from %s\n", in.spec.name.c_str(), std::string(dtype_name(in.spec.dtype)).c_str(),
                dims_to_string(in.spec.sample_dims).c_str(), in.source->describe().c_str());
    const int64_t running = world.sum(stream->total());
    const int64_t skip = int64_t(session.resumed_samples());
    log::info("dataset:       %lld samples, running %lld (batch %lld%s%s%s)\n", static_cast<long long>(stream->dataset_size()),
              static_cast<long long>(running), static_cast<long long>(session.batch().size),
              session.batch().note.empty() ? "" : (", " + session.batch().note).c_str(),
              o.d.stream.shuffle ? (", shuffled with seed " + std::to_string(o.d.stream.seed)).c_str() : ", sorted order",
              skip ? (", resuming after " + std::to_string(skip)).c_str() : "");
    log::info("preprocessing: %s\n", o.d.pre.describe().c_str());
  }
  if (!o.merge.empty())
    log::info("merging:       %zu histogram files (%llu samples)\n", o.merge.size(), static_cast<unsigned long long>(session.merged_samples()));
  std::string method = o.method;
  if (o.method == "percentile") method += " " + std::to_string(o.percentile);
  if (o.method == kAutoMethod)
    method += std::string(" (") + kDefaultMethod + "'s QDQ model against FP32 on " + std::to_string(o.auto_samples) +
              " samples; where it collapses, every method and then the equalized graph)";
  log::info("method:        %s, %lld bins%s\n", method.c_str(),
            static_cast<long long>(o.bins), o.skip_zeros ? ", zeros skipped" : "");
  for (const auto& [k, m] : session.options().choice.overrides) log::info("override:      %s -> %s\n", k.c_str(), m.c_str());
  if (o.equalize) {
    const EqualizeReport& e = session.equalized();
    log::info("equalize:      cross-layer equalization of %zu convolutions into %zu readers (%d sweeps); %zu left as they are\n",
              e.producers, e.readers, e.sweeps, e.skipped.size());
  }
  std::string outputs;
  if (!o.cache.empty()) {
    outputs += "cache " + o.cache + " (TRT-" + o.trt_version + "-" + (o.method == kAutoMethod ? "<the chosen method's calibrator>" : trt_algorithm(o.method));
    if (o.method != "max" && o.method != "entropy" && o.method != kAutoMethod)
      outputs += ": TensorRT has no " + o.method + " calibrator and loads a cache only under its own calibrator's name; "
                 "EntropyCalibration2 is its default";
    outputs += ") ";
  }
  if (!o.json.empty()) outputs += "json " + o.json + " ";
  if (!o.histograms.empty()) outputs += "histograms " + o.histograms;
  log::info("outputs:       %s\n", outputs.c_str());
  log::info("compute:       %d threads%s\n", compute_threads(),
            streams > 1 ? (", " + std::to_string(streams) + " streams of " + std::to_string(std::max(1, compute_threads() / streams)) +
                           " (batches at once)").c_str()
                        : "");
  if (world.size() > 1) log::info("MPI:           %d ranks, each observing its share of the order; rank 0 merges and writes\n", world.size());
  std::fflush(stdout);
}

// NaN and ±Inf each tensor saw, left out of its range.
void report_non_finite(const Calibrator& calibrator) {
  for (const auto& [name, obs] : calibrator.observers()) {
    const TensorStats& s = obs.stats();
    if (s.nan || s.pos_inf || s.neg_inf)
      log::warn("tensor '%s' had %llu NaN, %llu +Inf, %llu -Inf values (excluded from its range)\n", name.c_str(),
                static_cast<unsigned long long>(s.nan), static_cast<unsigned long long>(s.pos_inf), static_cast<unsigned long long>(s.neg_inf));
  }
}

// Why --method auto may not calibrate an equalized graph here ("" when it may).
std::string why_not_equalized(const CalibrateOptions& o, const MpiWorld& world) {
  if (o.equalize) return "the graph is already equalized (--equalize)";
  if (!o.cache.empty()) return "--cache describes the model as given";
  if (!o.resume.empty() || !o.merge.empty()) return "--resume and --merge continue histograms of the graph as given";
  if (world.size() > 1) return "an MPI job observes the graph as given";
  return "";
}

void calibrate(CalibrateOptions o, const MpiWorld& world) {
  // From here on Ctrl-C (or SIGTERM) stops the run between batches, with nothing half-written.
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  o.d.resolve();
  check_argument(!o.cache.empty() || !o.json.empty() || !o.histograms.empty(), "nothing to write: give --cache, --json or --histograms");
  check_argument(!o.d.data.empty() || !o.merge.empty(), "give --data (samples to run) or --merge (histogram files to combine)");
  // The default, auto, measures on --data; merging histograms alone, the method it prefers.
  if (o.method == kAutoMethod && o.d.data.empty() && !o.method_given) o.method = kDefaultMethod;
  check_argument(o.method != kAutoMethod || !o.d.data.empty(), "--method auto measures the methods on samples of --data; give --data");
  check_argument(!o.equalize || o.cache.empty(), "--equalize with --cache: the cache would hold the equalized graph's ranges, but TensorRT builds "
                                               "from the model as given; write --json and let q8 quantize equalize the same way");
  check_output_paths(o);
  check_argument(world.size() == 1 || (o.resume.empty() && o.merge.empty()),
                 "--resume and --merge run in one process, not in a job of " + std::to_string(world.size()) + " ranks");
  const MethodChoice choice = method_choice(o);
  CalibrationSession session(session_options(o, choice, world));
  const int streams = calibration_streams(o.streams);
  print_settings(session, o, world, streams);

  CalibrationRunResult run;
  const auto start = std::chrono::steady_clock::now();
  if (BatchStream* stream = session.stream()) {
    Progress progress("calibrating", stream->total(), log::quiet());
    run = session.run(progress, g_interrupted, streams);
    for (const auto& s : stream->skipped()) log::warn("skipped %s\n", s.c_str());
    if (!stream->skipped().empty()) log::warn("skipped %zu corrupt samples (--strict makes this an error)\n", stream->skipped().size());
  }
  if (world.size() > 1) {
    // Every rank's share ends at its end of the order, so an interrupted job has no prefix to
    // resume from: nothing is written.
    check(!world.any(run.interrupted), "interrupted; nothing written (a job of several ranks cannot be resumed)");
    world.merge_to_root(session.calibrator());
    run.samples = world.sum(run.samples), run.positions = world.sum(run.positions);
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (world.rank() != 0) return;
  }
  const HistogramFile file = session.histograms(run.positions);
  if (run.interrupted) {
    if (!o.histograms.empty()) {
      write_histograms(o.histograms, file);
      throw Error("interrupted after " + std::to_string(file.samples) + " samples; histograms so far are in " + o.histograms +
                  " (continue with --resume " + o.histograms + "); no cache or table written");
    }
    throw Error("interrupted after " + std::to_string(file.samples) + " samples; nothing written (--histograms keeps progress)");
  }
  if (session.stream())
    log::info("observed %lld samples in %.2f s (%.1f samples/s)\n", static_cast<long long>(run.samples), run.seconds,
              run.seconds > 0 ? double(run.samples) / run.seconds : 0.0);
  std::unique_ptr<CalibrationSession> equalized;
  if (o.method == kAutoMethod) {
    AutoCalibrationOptions a;
    a.samples = o.auto_samples, a.why_not_equalized = why_not_equalized(o, world), a.streams = streams, a.interrupt = &g_interrupted;
    equalized = choose_method_by_outputs(session, a);
  }
  // The session whose observers the outputs come from: the equalized one when auto chose it.
  CalibrationSession& out = equalized ? *equalized : session;
  const HistogramFile written = equalized ? out.histograms(run.positions) : file;
  const RangeTable table = out.table(written.samples);
  report_non_finite(out.calibrator());
  int degenerate = 0;
  for (const auto& [name, r] : table.activations) degenerate += r.degenerate();
  log::info("calibrated %zu activations (%d all-zero) and %zu weights\n", table.activations.size(), degenerate, table.weights.size());
  for (const auto& [name, r] : table.activations)
    log::debug("  %-44s amax %-12.6g %-10s max |x| %-12.6g clips %.3g %%", name.c_str(), r.degenerate() ? 0.0 : r.descriptor.amax[0],
               r.descriptor.method.c_str(), r.stats.max_abs, 100 * r.clipped);
  report_clipping(clipping_warnings(out.calibrator(), table, out.graph(), choice.options, o.clip_limit), o.clip_limit,
                  o.d.stream.strict);
  write_calibration({o.histograms, o.json, o.cache, o.trt_version, trt_algorithm(out.options().choice.default_method), out.settings_json()},
                    written, table, out.graph());
  for (const std::string* path : {&o.histograms, &o.json, &o.cache})
    if (!path->empty()) log::info("wrote %s\n", path->c_str());
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("calibrate", "Stream a dataset through the FP32 graph and write calibration data");
  auto o = std::make_shared<CalibrateOptions>();
  cmd->add_option("model", o->model, "ONNX model")->required();
  add_dataset_options(cmd, o->d, true);
  auto* method = "Method";
  cmd->add_option("--method", o->method, "max, percentile, entropy, mse, or auto (each tried on the model's outputs, docs/calibration.md)")
      ->capture_default_str()->group(method);
  cmd->add_option("--auto-samples", o->auto_samples, "samples --method auto measures each method on")
      ->capture_default_str()->check(at_least(1))->group(method);
  cmd->add_option("--percentile", o->percentile, "for --method percentile")->capture_default_str()->group(method)
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--bins", o->bins, "histogram bins (a power of two)")->capture_default_str()->group(method)
      ->check(power_of_two(2, int64_t(1) << 24));
  cmd->add_option("--clip-limit", o->clip_limit, "warn about tensors whose amax clips more than this fraction of their non-zero values")
      ->capture_default_str()->check(CLI::Range(0.0, 1.0))->group(method);
  cmd->add_flag("--skip-zeros", o->skip_zeros, "leave zeros out of histograms")->group(method);
  cmd->add_flag("--equalize", o->equalize,
                "cross-layer equalization first (docs/calibration.md); q8 quantize then equalizes the same way")->group(method);
  cmd->add_option("--override", o->overrides, "NAME_OR_OPTYPE=METHOD: another method for a tensor or an op type's outputs")->group(method);
  auto* out = "Outputs";
  cmd->add_option("--cache", o->cache, "TensorRT calibration cache")->group(out);
  cmd->add_option("--json", o->json, "JSON range table (what q8 quantize reads)")->group(out);
  cmd->add_option("--histograms", o->histograms, "HDF5 histograms (to inspect, resume or merge)")->group(out);
  cmd->add_option("--trt-version", o->trt_version, "TensorRT version in the cache header (7000, 8601, 100300)")
      ->capture_default_str()->group(out);
  cmd->add_option("--resume", o->resume, "continue the run saved in this HDF5 file")->group(out);
  cmd->add_flag("--force", o->force, "resume although the data, order or preprocessing differ from the saved run's")->group(out);
  cmd->add_option("--streams", o->streams, "batches at once (as trtexec's --streams), the threads split between them; 0: one per thread")
      ->capture_default_str()->check(CLI::Range(0, kMaxThreads))->group("Streaming");
  cmd->add_option("--merge", o->merge, "add the histograms of this HDF5 file (shards calibrated apart); repeatable")->group(out);
  cmd->callback([o, cmd] {
    o->method_given = cmd->count("--method") > 0;
    MpiWorld& world = MpiWorld::join();
    if (!world.joined()) return calibrate(*o, world);
    // In a job, rank 0 reports and writes; an error on any rank stops the job (MPI_Abort) with
    // its one line, and nothing is written.
    if (world.rank() != 0 && log::level() == log::Level::Info) log::set_level(log::Level::Warn);
    try {
      calibrate(*o, world);
    } catch (const std::exception& e) {
      log::error("rank %d of %d: %s", world.rank(), world.size(), e.what());
      log::flush();
      world.abort(dynamic_cast<const ArgumentError*>(&e) ? 2 : 1);
    }
    world.finish();
  });
}

}  // namespace q8::cli
