// q8 bench MODEL [--int8 QDQ_MODEL|PLAN] [--shape NAME=DIMS]... [--warmup N] [--iterations N]
// [--profile] [--json FILE] [--peer ort]: latency and throughput in the manner of trtexec — warm-up
// runs, then timed iterations; mean, median, p99, min and max latency; samples per second; with
// --int8 the INT8 engine on the same inputs beside it; with --profile each node's share of the time
// and, on a device, each kernel's device time from OpenCL's profiling events; with --peer ort ONNX
// Runtime's CPU execution provider on the same model files and inputs, its outputs beside q8's.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <optional>

#include <nlohmann/json.hpp>

#include "engine/cpu/threads.h"
#include "engine/io/atomic_write.h"
#include "engine/io/log.h"
#include "engine/plan/build_plan.h"
#include "engine/runtime/backends.h"
#include "engine/runtime/runnable.h"
#include "eval/accuracy.h"
#include "engine/plan/reference/backend.h"
#include "engine/passes/optimize_for_inference.h"
#include "tools/q8/commands.h"
#include "tools/q8/onnxruntime_peer.h"
#include "tools/q8/tensor_args.h"
#include "tools/q8/validators.h"

namespace q8::cli {

namespace {

inline constexpr int kDefaultWarmup = 3;
inline constexpr int kDefaultIterations = 20;

struct BenchOptions {
  std::string model;
  std::string int8;                 // a QDQ model (lowered here) or a plan, run beside MODEL
  std::vector<std::string> shapes;  // NAME=1x3x224x224
  std::vector<std::string> inputs;  // NAME=FILE: given input values (token ids a random tensor would put out of range)
  int warmup = kDefaultWarmup;
  int iterations = kDefaultIterations;
  int threads = 0;
  bool profile = false;
  std::string json;
  std::string graph_optimization = "all";
  std::string device = "cpu";  // where the INT8 engine runs
  std::string peer;             // "ort": ONNX Runtime on the same model files and inputs
  std::string ort_library = "libonnxruntime.so.1";
};

struct NodeTime {
  std::string node, op, backend;
  double total_ms = 0;
};

struct Timing {
  std::string what;
  std::vector<double> ms;        // per iteration
  std::vector<double> profiled_ms;  // on a device: per iteration of the pass with profiling events
  std::vector<NodeTime> nodes;   // --profile: per node, summed over the iterations
  int64_t batch = 1;
  MemoryReport memory;           // the executor's buffers at these shapes
  size_t copies = 0;             // host↔device copies per run
  std::vector<Executor::Crossing> crossings;  // those copies, value by value (the last run's)
  std::optional<DeviceTimes> device;  // a device backend's time over the iterations
  std::string placement;         // placement_summary, with the nodes that work on shapes only
  TensorMap outputs;             // the last timed run's

  double percentile(double p) const {  // nearest rank on the sorted latencies
    std::vector<double> s = ms;
    std::sort(s.begin(), s.end());
    const size_t rank = size_t(std::max(1.0, std::ceil(p / 100.0 * double(s.size()))));
    return s[std::min(rank, s.size()) - 1];
  }
  double mean() const { return std::accumulate(ms.begin(), ms.end(), 0.0) / double(ms.size()); }
  double throughput() const { return double(batch) * 1000.0 / mean(); }
};

// Samples a run takes: the first input's first axis.
int64_t batch_of(const TensorMap& inputs) {
  return inputs.empty() || inputs.begin()->second.rank() == 0 ? 1 : inputs.begin()->second.dim(0);
}

Timing time_graph(const std::string& what, Runnable runnable, const TensorMap& inputs, const BenchOptions& o, const std::string& device) {
  Timing t;
  t.what = what;
  t.batch = batch_of(inputs);
  const BackendList backends = backends_for(device);
  const std::unique_ptr<Executor> executor = make_executor(std::move(runnable), device);
  Executor& exec = *executor;
  t.placement = placement_summary(exec.placement(), exec.shape_work());
  for (size_t i = 0; i < exec.graph().nodes.size(); ++i) {
    const Node& n = exec.graph().nodes[i];
    t.nodes.push_back({n.describe(), n.domain.empty() ? n.op_type : n.domain + "." + n.op_type, std::string(exec.placement()[i]), 0});
  }
  using Clock = std::chrono::steady_clock;
  Clock::time_point last;
  bool profiling = false;
  if (o.profile)  // a timer: a device's outputs stay there (on a device a node's host time is its enqueue)
    exec.set_hook(
        [&](const Node&, size_t i, const std::vector<Tensor>&) {
          const Clock::time_point now = Clock::now();
          if (profiling) t.nodes[i].total_ms += std::chrono::duration<double, std::milli>(now - last).count();
          last = now;
        },
        false);
  for (int i = 0; i < o.warmup; ++i) exec.run(inputs);
  const auto timed_runs = [&](std::vector<double>& ms) {
    for (int i = 0; i < o.iterations; ++i) {
      const Clock::time_point start = Clock::now();
      last = start;
      t.outputs = exec.run(inputs);
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
  };
  // On a device the latency comes from runs as an application makes them; the device's own times
  // (an OpenCL profiling event on every command) and --profile's node timer from a second pass.
  const bool on_device = is_opencl_device(device);
  profiling = o.profile && !on_device;
  if (!on_device) for (const Backend* b : backends) b->begin_timing();
  timed_runs(t.ms);
  if (on_device) {
    profiling = o.profile;
    for (const Backend* b : backends) b->begin_timing();
    timed_runs(t.profiled_ms);
  }
  for (const Backend* b : backends)
    if (std::optional<DeviceTimes> d = b->end_timing()) t.device = d;
  t.memory = exec.memory();
  t.copies = exec.copies();
  t.crossings = exec.crossings();
  return t;
}

// Whether a placement summary names more than one backend.
bool backends_differ(const std::string& placement) { return placement.find(';') != std::string::npos; }

void print_timing(const Timing& t, int top) {
  log::info("%-5s latency: mean %.3f ms, median %.3f ms, p99 %.3f ms, min %.3f ms, max %.3f ms; throughput %.1f samples/s\n",
              t.what.c_str(), t.mean(), t.percentile(50), t.percentile(99), t.percentile(0), t.percentile(100), t.throughput());
  if (backends_differ(t.placement)) log::info("      placement: %s\n", t.placement.c_str());
  if (t.copies > 0) log::info("      %zu host↔device copies per run\n", t.copies);
  if (!t.crossings.empty()) {  // the values that cross, largest first
    std::vector<Executor::Crossing> c = t.crossings;
    std::stable_sort(c.begin(), c.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
    c.resize(std::min<size_t>(c.size(), 10));
    log::info("  %-44s %-8s %12s\n", "value copied (largest first)", "to", "MiB/iter");
    for (const auto& x : c) log::info("  %-44.44s %-8s %12.3f\n", x.value.c_str(), x.to.c_str(), double(x.bytes) / 1048576.0);
  }
  if (t.device && !t.ms.empty()) {
    const DeviceTimes& d = *t.device;
    const double runs = double(t.ms.size());
    const double profiled = t.profiled_ms.empty() ? t.mean() : std::accumulate(t.profiled_ms.begin(), t.profiled_ms.end(), 0.0) / runs;
    log::info("      device time per run: kernels %.3f ms (%.0f launches), host→device %.3f ms (%.2f MiB), device→host %.3f ms (%.2f MiB); "
                "the rest of the %.3f ms a run took with profiling events is host work and waiting\n",
                d.kernel_ms / runs, double(d.kernels) / runs, d.upload_ms / runs, double(d.upload_bytes) / runs / 1048576.0,
                d.download_ms / runs, double(d.download_bytes) / runs / 1048576.0, profiled);
  }
  if (t.device && !t.ms.empty() && top > 0 && !t.device->per_kernel.empty()) {
    // Kernels by device time (OpenCL profiling events): where the device's time goes, which the
    // host-side node times below cannot show for commands that run asynchronously.
    std::vector<std::pair<std::string, DeviceTimes::PerKernel>> kernels(t.device->per_kernel.begin(), t.device->per_kernel.end());
    std::stable_sort(kernels.begin(), kernels.end(), [](const auto& a, const auto& b) { return a.second.ms > b.second.ms; });
    const double runs = double(t.ms.size());
    log::info("  %-44s %16s %10s %6s\n", "device kernel (slowest first)", "launches/iter", "ms/iter", "%");
    for (const auto& [name, k] : kernels)
      log::info("  %-44.44s %16.1f %10.3f %5.1f%%\n", name.c_str(), double(k.launches) / runs, k.ms / runs,
                t.device->kernel_ms > 0 ? 100.0 * k.ms / t.device->kernel_ms : 0.0);
    // The same by global size: which layers the time is in.
    std::vector<std::pair<std::string, DeviceTimes::PerKernel>> launches(t.device->per_launch.begin(), t.device->per_launch.end());
    std::stable_sort(launches.begin(), launches.end(), [](const auto& a, const auto& b) { return a.second.ms > b.second.ms; });
    launches.resize(std::min(launches.size(), size_t(top)));
    log::info("  %-44s %16s %10s %6s\n", "kernel and global size (slowest first)", "launches/iter", "ms/iter", "%");
    for (const auto& [name, k] : launches)
      log::info("  %-44.44s %16.1f %10.3f %5.1f%%\n", name.c_str(), double(k.launches) / runs, k.ms / runs,
                t.device->kernel_ms > 0 ? 100.0 * k.ms / t.device->kernel_ms : 0.0);
  }
  if (t.memory.owned_bytes > 0)
    log::info("      memory: %zu intermediates; the executor's own buffers in an arena of %.2f MiB (%.2f MiB without reuse)\n",
                t.memory.values.size(), double(t.memory.arena.arena_bytes) / 1048576.0, double(t.memory.owned_bytes) / 1048576.0);
  if (t.nodes.empty() || top == 0) return;
  std::vector<NodeTime> nodes = t.nodes;
  double total = 0;
  for (const NodeTime& n : nodes) total += n.total_ms;
  if (total <= 0) return;
  std::stable_sort(nodes.begin(), nodes.end(), [](const NodeTime& a, const NodeTime& b) { return a.total_ms > b.total_ms; });
  log::info("  %-44s %-16s %-15s %10s %6s\n", "node (slowest first)", "op", "backend", "ms/iter", "%");
  for (int i = 0; i < top && i < int(nodes.size()); ++i)
    log::info("  %-44.44s %-16.16s %-15s %10.3f %5.1f%%\n", nodes[size_t(i)].node.c_str(), nodes[size_t(i)].op.c_str(),
                nodes[size_t(i)].backend.c_str(), nodes[size_t(i)].total_ms / double(t.ms.size()), 100.0 * nodes[size_t(i)].total_ms / total);
}

nlohmann::ordered_json latency_json(const Timing& t) {
  nlohmann::ordered_json j;
  j["latency_ms"] = {{"mean", t.mean()}, {"median", t.percentile(50)}, {"p99", t.percentile(99)}, {"min", t.percentile(0)},
                     {"max", t.percentile(100)}, {"iterations", t.ms}};
  j["throughput_samples_per_s"] = t.throughput();
  return j;
}

nlohmann::ordered_json timing_json(const Timing& t) {
  nlohmann::ordered_json j = latency_json(t);
  if (!t.profiled_ms.empty()) j["latency_ms_with_profiling_events"] = t.profiled_ms;
  j["placement"] = t.placement;
  j["host_device_copies_per_run"] = t.copies;
  nlohmann::ordered_json crossings = nlohmann::ordered_json::array();
  for (const auto& x : t.crossings) crossings.push_back({{"value", x.value}, {"to", x.to}, {"bytes", x.bytes}});
  j["host_device_copies"] = crossings;
  if (t.device && !t.ms.empty()) {
    const double runs = double(t.ms.size());
    j["device_ms_per_run"] = {{"kernels", t.device->kernel_ms / runs}, {"host_to_device", t.device->upload_ms / runs},
                              {"device_to_host", t.device->download_ms / runs}, {"kernel_launches", double(t.device->kernels) / runs},
                              {"host_to_device_bytes", double(t.device->upload_bytes) / runs},
                              {"device_to_host_bytes", double(t.device->download_bytes) / runs}};
    nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
    for (const auto& [name, k] : t.device->per_kernel)
      kernels.push_back({{"kernel", name}, {"launches_per_run", double(k.launches) / runs}, {"ms_per_run", k.ms / runs}});
    j["device_kernels"] = kernels;
    nlohmann::ordered_json launches = nlohmann::ordered_json::array();  // by kernel and global size: one layer from another
    for (const auto& [name, k] : t.device->per_launch)
      launches.push_back({{"launch", name}, {"launches_per_run", double(k.launches) / runs}, {"ms_per_run", k.ms / runs}});
    j["device_launches"] = launches;
  }
  j["arena_bytes"] = t.memory.arena.arena_bytes;
  j["executor_buffer_bytes_without_reuse"] = t.memory.owned_bytes;
  if (!t.nodes.empty() && !t.ms.empty()) {
    nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
    for (const NodeTime& n : t.nodes)
      nodes.push_back({{"node", n.node}, {"op", n.op}, {"backend", n.backend}, {"ms_per_iteration", n.total_ms / double(t.ms.size())}});
    j["profile"] = nodes;
  }
  return j;
}

// ONNX Runtime on a model file and the same inputs, timed as q8 is (warm-up runs, then timed runs,
// each a whole Run call), with the outputs of one more run.
Timing time_peer(const OnnxRuntimePeer& ort, const std::string& what, const std::string& model, const TensorMap& inputs,
                 const BenchOptions& o) {
  Timing t;
  t.what = what;
  t.batch = batch_of(inputs);
  const std::unique_ptr<OnnxRuntimePeer::Session> session = ort.open(model, inputs, compute_threads(), o.graph_optimization);
  for (int i = 0; i < o.warmup; ++i) session->run(false);
  for (int i = 0; i < o.iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    session->run(false);
    t.ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  t.outputs = session->run(true);
  return t;
}

// The peer's outputs (the reference) beside q8's: every float32 output both give with one shape.
std::vector<OutputError> agreement(const TensorMap& peer, const TensorMap& q8) {
  std::vector<OutputError> errors;
  for (const auto& [name, a] : peer) {
    const auto it = q8.find(name);
    if (it == q8.end() || a.rank() == 0 || a.dims() != it->second.dims() || a.dtype() != DType::Float32 || it->second.dtype() != DType::Float32)
      continue;
    errors.push_back({name});
    errors.back().add(a, it->second);
  }
  return errors;
}

// Prints and returns (as JSON) a peer's timing beside q8's on the same model file.
nlohmann::ordered_json report_peer(const Timing& peer, const Timing& q8) {
  print_timing(peer, 0);
  log::info("%s / %s latency: %.2f×\n", q8.what.c_str(), peer.what.c_str(), q8.mean() / peer.mean());
  nlohmann::ordered_json j = latency_json(peer);
  j["q8_over_peer_latency"] = q8.mean() / peer.mean();
  nlohmann::ordered_json outputs = nlohmann::ordered_json::array();
  const std::vector<OutputError> errors = agreement(peer.outputs, q8.outputs);
  for (const OutputError& e : errors) {
    log::info("      output %s: %s beside %s: max |difference| %.3g (max |value| %.3g), mean cosine %.6f\n", e.name.c_str(),
              q8.what.c_str(), peer.what.c_str(), e.max_abs_error, e.max_abs_fp32, e.cosine());
    outputs.push_back({{"name", e.name}, {"max_abs_difference", e.max_abs_error}, {"max_abs_value", e.max_abs_fp32},
                       {"cosine", e.cosine()}});
  }
  if (errors.empty()) log::info("      (no float32 output of one shape in both to compare)\n");
  j["outputs_beside_q8"] = outputs;
  return j;
}

void bench(const BenchOptions& o) {
  if (o.threads > 0) set_compute_threads(o.threads);
  log::info("=== q8 bench ===\nmodel:      %s\nint8:       %s\ndevice:     %s\nthreads:    %d\nwarm-up:    %d runs\n"
              "iterations: %d\nprofile:    %s\n",
              o.model.c_str(), o.int8.empty() ? "(none; --int8 QDQ_MODEL|PLAN adds the INT8 engine)" : o.int8.c_str(),
              describe_device(o.device).c_str(), compute_threads(), o.warmup, o.iterations, o.profile ? "per node (host) and per device kernel" : "off");
  check_output_file("--json", o.json, {{"the model", o.model}, {"--int8", o.int8}});
  std::unique_ptr<OnnxRuntimePeer> ort;
  if (o.peer == "ort") {
    ort = std::make_unique<OnnxRuntimePeer>(o.ort_library);
    log::info("peer:       ONNX Runtime %s (%s), CPU execution provider, %d intra-op threads, sequential\n", ort->version().c_str(),
              o.ort_library.c_str(), compute_threads());
  } else {
    log::info("peer:       (none; --peer ort times ONNX Runtime on the same model files and inputs)\n");
  }
  Runnable model = load_runnable(o.model, false, nullptr, o.device);
  const bool model_is_plan = model.plan.has_value();
  const TensorMap inputs = gather_inputs(model.graph, o.inputs, o.shapes, kDefaultSeed);
  log::info("shapes:     %s\n", describe_shapes(inputs).c_str());
  const auto level = graph_optimization_level(o.graph_optimization, "--graph-optimization");
  if (level) log::info("%s\n", optimize_for_inference(model.graph, *level, runs_cpu_int8(o.device)).summary().c_str());
  const int top = o.profile ? 15 : 0;
  // A plan given as MODEL holds fused INT8 ops: label it by what it runs, without reading it again.
  const bool int8_model = std::any_of(model.graph.nodes.begin(), model.graph.nodes.end(), [](const Node& n) { return n.domain == kInt8Domain; });
  std::vector<Timing> timings = {time_graph(int8_model ? "INT8" : "FP32", std::move(model), inputs, o, int8_model ? o.device : "cpu")};
  print_timing(timings[0], top);
  bool int8_is_plan = false;
  if (!o.int8.empty()) {
    Runnable int8 = load_runnable(o.int8, true, nullptr, o.device);
    int8_is_plan = int8.plan.has_value();
    if (level) log::info("INT8 %s\n", optimize_for_inference(int8.graph, *level, runs_cpu_int8(o.device)).summary().c_str());
    timings.push_back(time_graph("INT8", std::move(int8), inputs, o, o.device));
    print_timing(timings[1], top);
    log::info("INT8 / FP32 latency: %.2f× (%s)\n", timings[1].mean() / timings[0].mean(),
                o.device == "cpu"             ? "INT8 on the CPU INT8 backend, what it declines on the integer reference (placement above)"
                : o.device == "cpu-reference" ? "INT8 on the integer reference: plain loops, the oracle, not fast"
                                              : "INT8 through OpenCL's portable kernels, FP32 on the CPU");
  }
  nlohmann::ordered_json peer_json;
  if (ort) {
    peer_json = {{"name", "onnxruntime"}, {"version", ort->version()}, {"library", o.ort_library}, {"intra_op_threads", compute_threads()}};
    // ONNX Runtime runs ONNX files: the FP32 model, and the QDQ model q8 lowered (a plan is q8's own).
    for (size_t i = 0; i < timings.size(); ++i) {
      const Timing& t = timings[i];
      const std::string& file = i == 0 ? o.model : o.int8;
      if (i == 0 ? model_is_plan : int8_is_plan) {
        log::info("ORT %s: not timed (%s is a q8 plan; ONNX Runtime runs ONNX files)\n", t.what.c_str(), file.c_str());
        continue;
      }
      peer_json[t.what == "FP32" ? "fp32" : "int8"] = report_peer(time_peer(*ort, "ORT " + t.what, file, inputs, o), t);
    }
  }
  if (o.json.empty()) return;
  nlohmann::ordered_json j;
  j["model"] = o.model;
  j["int8"] = o.int8;
  j["shapes"] = describe_shapes(inputs);
  j["threads"] = compute_threads();
  j["warmup"] = o.warmup;
  for (const Timing& t : timings) j[t.what == "FP32" ? "fp32" : "int8"] = timing_json(t);
  if (ort) j["peer"] = peer_json;
  write_file_atomically(o.json, j.dump(2) + "\n");
  log::info("wrote %s\n", o.json.c_str());
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "Latency and throughput of a model, and of its INT8 engine beside it");
  auto o = std::make_shared<BenchOptions>();
  cmd->add_option("model", o->model, "ONNX model (FP32), or a plan file")->required();
  cmd->add_option("--int8", o->int8, "QDQ model (lowered here) or plan to time on the same inputs");
  cmd->add_option("--device", o->device, "where the INT8 engine runs: cpu, cpu-reference (the integer reference alone), or opencl[:N]")->capture_default_str()->check(device_name());
  cmd->add_option("--shape", o->shapes, "NAME=DxDx… input shape (dynamic dims default to 1)");
  cmd->add_option("--input", o->inputs, "NAME=FILE (.npy or ONNX TensorProto .pb): an input's values, as q8 run takes them; repeat per "
                                        "input. Inputs not given are deterministic random tensors");
  cmd->add_option("--warmup", o->warmup, "untimed runs first")->capture_default_str()->check(at_least(0));
  cmd->add_option("--iterations", o->iterations, "timed runs")->capture_default_str()->check(at_least(1));
  add_graph_optimization_option(cmd, o->graph_optimization);
  cmd->add_option("--threads", o->threads, "compute threads (0: one per core)")->capture_default_str()->check(CLI::Range(0, kMaxThreads));
  cmd->add_flag("--profile", o->profile, "time every node; print the slowest");
  cmd->add_option("--json", o->json, "write every latency and the profile as JSON");
  cmd->add_option("--peer", o->peer, "time a peer on the same model files and inputs: ort (ONNX Runtime's CPU execution provider)")
      ->check(CLI::IsMember({"ort"}));
  cmd->add_option("--ort-library", o->ort_library, "ONNX Runtime's shared library for --peer ort (a path, or a name the loader finds)")
      ->capture_default_str();
  cmd->callback([o] { bench(*o); });
}

}  // namespace q8::cli
