// q8 run MODEL|PLAN [--input NAME=FILE]... --output-dir DIR [--int8]: runs the graph on the CPU and
// writes DIR/<output>.npy for every graph output. With --int8 a QDQ model is first lowered into
// the INT8 engine's fused integer ops (engine/plan/lower.h), which the INT8 reference runs; a plan
// file from q8 build holds them already.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>

#include "engine/cpu/threads.h"
#include "engine/exec/executor.h"
#include "engine/io/atomic_write.h"
#include "engine/io/log.h"
#include "engine/io/npy.h"
#include "engine/onnx/import.h"
#include "engine/onnx/tensor_proto.h"
#include "engine/runtime/backends.h"
#include "engine/runtime/runnable.h"
#include "engine/passes/optimize_for_inference.h"
#include "tools/q8/commands.h"
#include "tools/q8/tensor_args.h"
#include "tools/q8/validators.h"

namespace q8::cli {

namespace {

struct RunOptions {
  std::string model;
  std::vector<std::string> inputs;  // NAME=FILE
  std::vector<std::string> shapes;  // NAME=1x3x224x224
  std::string output_dir;
  std::string device = "cpu";
  uint64_t seed = kDefaultSeed;
  int threads = 0;
  bool dump_output = false;
  bool int8 = false;
  std::string graph_optimization = "all";
};

void print_output(const std::string& name, const Tensor& t) {
  log::info("  %s: %s %s\n", name.c_str(), std::string(dtype_name(t.dtype())).c_str(), dims_to_string(t.dims()).c_str());
  if (t.dtype() != DType::Float32 || t.rank() != 2) return;
  const float* p = t.data<float>();
  for (int64_t r = 0; r < t.dim(0); ++r) {
    int64_t best = 0;
    for (int64_t c = 1; c < t.dim(1); ++c)
      if (p[r * t.dim(1) + c] > p[r * t.dim(1) + best]) best = c;
    log::info("    [%lld] top-1 %lld (%.4f)\n", static_cast<long long>(r), static_cast<long long>(best), p[r * t.dim(1) + best]);
  }
}

// Every graph output's file in dir, each checked before any work starts: two outputs that map to
// one file, or a file that cannot be written there (a directory in its place, an input), are errors.
std::vector<std::pair<std::string, std::string>> output_files(const Graph& graph, const RunOptions& o) {
  std::vector<std::pair<std::string, std::string>> inputs = {{"the model", o.model}};
  for (const auto& [name, path] : parse_assignments(o.inputs, "--input")) inputs.emplace_back("--input " + name, path);
  std::vector<std::pair<std::string, std::string>> files;  // (output, path)
  std::map<std::string, std::string> output_of;            // file name → output
  for (const ValueInfo& v : graph.outputs) {
    const std::string file = file_safe_name(v.name) + ".npy";
    const auto [it, fresh] = output_of.emplace(file, v.name);
    check(fresh, "outputs '" + it->second + "' and '" + v.name + "' would both be written to " + file + " in " + o.output_dir);
    files.emplace_back(v.name, (std::filesystem::path(o.output_dir) / file).string());
    if (std::filesystem::is_directory(o.output_dir)) check_output_file("--output-dir", files.back().second, inputs);
  }
  return files;
}

void run(const RunOptions& o) {
  if (o.threads > 0) set_compute_threads(o.threads);
  log::info("=== q8 run ===\nmodel:      %s\ndevice:     %s\nprecision:  %s\nthreads:    %d\noutput dir: %s\n",
              o.model.c_str(), describe_device(o.device).c_str(), o.int8 ? "int8 (QDQ lowered to fused integer ops)" : "as the model is (a plan: int8)",
              compute_threads(), o.output_dir.c_str());
  std::string lowering;
  Runnable runnable = load_runnable(o.model, o.int8, &lowering, o.device);
  log::info("%s", lowering.c_str());
  const auto files = output_files(runnable.graph, o);
  if (const auto level = graph_optimization_level(o.graph_optimization, "--graph-optimization"))
    log::info("%s\n", optimize_for_inference(runnable.graph, *level, runs_cpu_int8(o.device)).summary().c_str());
  std::string memory;
  const std::unique_ptr<Executor> executor = make_executor(std::move(runnable), o.device, &memory);
  Executor& exec = *executor;
  if (!memory.empty()) log::info("memory:     %s\n", memory.c_str());
  const std::string fallbacks = exec.placement_report(true);
  // Where the nodes run, for the INT8 engine and any device (an FP32 model on the CPU runs on "cpu" only).
  const bool int8_backends = std::any_of(exec.placement().begin(), exec.placement().end(), [](std::string_view b) { return b != "cpu"; });
  if (int8_backends || is_opencl_device(o.device))
    log::info("placement:  %s\n%s", placement_summary(exec.placement(), exec.shape_work()).c_str(), fallbacks.c_str());
  const TensorMap inputs = gather_inputs(exec.graph(), o.inputs, o.shapes, o.seed);
  for (const auto& [name, t] : inputs)
    log::info("input:      %s %s %s\n", name.c_str(), std::string(dtype_name(t.dtype())).c_str(), dims_to_string(t.dims()).c_str());
  const auto start = std::chrono::steady_clock::now();
  const TensorMap outputs = exec.run(inputs);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::error_code ec;
  std::filesystem::create_directories(o.output_dir, ec);
  check(!ec && std::filesystem::is_directory(o.output_dir), o.output_dir + ": cannot create output directory");
  log::info("ran in %.2f ms\noutputs:\n", ms);
  // Every output is written before any appears.
  StagedFiles staged;
  for (const auto& [name, path] : files) staged.write(path, serialize_npy(outputs.at(name)));
  staged.commit();
  for (const auto& [name, path] : files) {
    if (o.dump_output) print_output(name, outputs.at(name));
    else log::info("  %s -> %s\n", name.c_str(), path.c_str());
  }
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Run the FP32 graph on the CPU and write every output as .npy");
  auto o = std::make_shared<RunOptions>();
  cmd->add_option("model", o->model, "ONNX model, or a plan file from q8 build")->required();
  cmd->add_option("--input", o->inputs, "NAME=FILE (.npy or ONNX TensorProto .pb); repeat per input. "
                                        "Inputs not given are deterministic random tensors");
  cmd->add_option("--shape", o->shapes, "NAME=DxDx… fixes the dynamic dimensions of a generated input "
                                        "(others default to 1)");
  cmd->add_option("--output-dir", o->output_dir, "directory for <output name>.npy")->required();
  cmd->add_option("--device", o->device, "cpu, cpu-reference (the INT8 engine on the integer reference alone), or opencl[:N] for its OpenCL backend (N-th device over all platforms)")
      ->capture_default_str()
      ->check(device_name());
  cmd->add_option("--seed", o->seed, "seed of generated inputs")->capture_default_str()->check(at_least(0));
  cmd->add_option("--threads", o->threads, "compute threads (0: one per core)")->capture_default_str()->check(CLI::Range(0, kMaxThreads));
  add_graph_optimization_option(cmd, o->graph_optimization);
  cmd->add_flag("--int8", o->int8, "lower a QDQ model into fused INT8 ops and run them (the INT8 reference)");
  cmd->add_flag("--dump-output", o->dump_output, "print each output's shape, and the top-1 of each row of 2-D outputs");
  cmd->callback([o] { run(*o); });
}

}  // namespace q8::cli
