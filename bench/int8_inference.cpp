// INT8 CPU inference: a QDQ model's plan through the CPU INT8 backend (oneDNN's int8 primitives
// with the reference's epilogue; its QConv chains channels-last, as q8 bench runs it), beside the
// same plan (as the lowering made it) on the integer reference alone, q8's FP32
// executor on the FP32 model and, with --ort-dir, ONNX Runtime (npm onnxruntime-node) on the FP32
// and the QDQ model, all in one run on the same input and thread count. Prints ms per run and the
// ratios, checks that the two INT8 paths give the same bytes, and writes the figures as JSON.
//
//   int8_inference --model FP32.onnx --qdq QDQ.onnx --shape NAME=DIMS [--ort-dir DIR] [--threads T]
//                  [--repeat R] [--reference] [--name N] [--json OUT]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>

#include "engine/cpu/int8_primitive.h"
#include "engine/cpu/threads.h"
#include "engine/exec/executor.h"
#include "engine/io/atomic_write.h"
#include "engine/io/npy.h"
#include "engine/onnx/import.h"
#include "engine/passes/optimize_for_inference.h"
#include "engine/plan/lower.h"
#include "engine/plan/reference/backend.h"
#include "engine/runtime/backends.h"

namespace fs = std::filesystem;
using namespace q8;

namespace {

std::string run_command(const std::string& cmd) {
  std::string out;
  FILE* pipe = popen(cmd.c_str(), "r");
  check(pipe != nullptr, "cannot run: " + cmd);
  char buf[4096];
  while (fgets(buf, sizeof buf, pipe)) out += buf;
  check(pclose(pipe) == 0, "command failed: " + cmd + "\n" + out);
  return out;
}

// The median ms of `repeat` runs after one warm-up, and the last run's outputs.
double time_runs(Executor& exec, const TensorMap& feeds, int repeat, TensorMap* outputs = nullptr) {
  TensorMap out = exec.run(feeds);
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    out = exec.run(feeds);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  if (outputs) *outputs = std::move(out);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

double ort_ms(const std::string& ort_dir, const std::string& model, const fs::path& work, const std::string& feed, int threads,
              int repeat) {
  const std::string script = (fs::path(Q8_SOURCE_DIR) / "tests/oracle/ort_run.js").string();
  const std::string out = run_command("node " + script + " " + ort_dir + " " + model + " " + (work / "ort").string() + " " + feed +
                                      " --threads " + std::to_string(threads) + " --repeat " + std::to_string(repeat));
  const size_t at = out.find("\"ort_ms_per_run\":");
  check(at != std::string::npos, "ONNX Runtime printed no timing: " + out);
  return std::stod(out.substr(at + 17));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"INT8 CPU inference: q8's CPU INT8 backend vs its integer reference, its FP32 executor and ONNX Runtime"};
  std::string model, qdq_model, shape_arg, ort_dir, json, name;
  int threads = 2, repeat = 10;
  bool reference = false, profile = false;
  app.add_option("--model", model, "the FP32 model")->required();
  app.add_option("--qdq", qdq_model, "its QDQ model (q8 quantize)")->required();
  app.add_option("--shape", shape_arg, "INPUT=DxDx…")->required();
  app.add_option("--ort-dir", ort_dir, "npm prefix holding onnxruntime-node (without it, q8 alone is timed)");
  app.add_option("--threads", threads)->capture_default_str();
  app.add_option("--repeat", repeat)->capture_default_str();
  app.add_flag("--reference", reference, "also time the plan on the integer reference alone (slow) and compare the bytes");
  app.add_flag("--profile", profile, "print the INT8 plan's time per op type and backend");
  app.add_option("--name", name, "label in the report");
  app.add_option("--json", json, "write the figures here");
  CLI11_PARSE(app, argc, argv);
  try {
    set_compute_threads(threads);
    const size_t eq = shape_arg.find('=');
    check(eq != std::string::npos, "--shape must be NAME=DIMS");
    const std::string input = shape_arg.substr(0, eq);
    Dims dims;
    std::stringstream ss(shape_arg.substr(eq + 1));
    for (std::string d; std::getline(ss, d, 'x');) dims.push_back(std::stoll(d));
    Tensor x(DType::Float32, dims);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(0.0f, 1.0f);
    for (float& v : x.values<float>()) v = dist(rng);
    const TensorMap feeds{{input, x}};
    std::printf("int8_inference: %s, %s, %d threads, %d runs each; oneDNN %s (%s)\n", model.c_str(), shape_arg.c_str(), threads,
                repeat, onednn_isa_name().c_str(), onednn_int8_vnni() ? "s8 sources" : "u8 sources, summed by sign");

    Graph fp32 = load_model(model);
    optimize_for_inference(fp32);
    Executor fp32_exec(std::move(fp32));
    const double fp32_ms = time_runs(fp32_exec, feeds, repeat);

    const Graph plan = lower_qdq(load_model(qdq_model)).graph;
    Graph laid_out = plan;  // as q8 run and q8 bench run it on the CPU: its QConv chains channels-last
    const std::string layout = optimize_for_inference(laid_out, GraphOptimizationLevel::All, true).layout.summary();
    std::printf("INT8 layout: %s\n", layout.c_str());
    Executor int8_exec(std::move(laid_out), backends_for("cpu"));
    TensorMap int8_out;
    const double int8_ms = time_runs(int8_exec, feeds, repeat, &int8_out);
    if (profile) {
      std::map<std::string, double> per_op;
      auto last = std::chrono::steady_clock::now();
      int8_exec.set_hook([&](const Node& node, size_t i, const std::vector<Tensor>&) {
        const auto now = std::chrono::steady_clock::now();
        per_op[node.op_type + " (" + std::string(int8_exec.placement().at(i)) + ")"] += std::chrono::duration<double, std::milli>(now - last).count();
        last = now;
      });
      last = std::chrono::steady_clock::now();
      int8_exec.run(feeds);
      int8_exec.set_hook(nullptr);
      for (const auto& [op, ms] : per_op) std::printf("  %-40s %8.2f ms\n", op.c_str(), ms);
    }
    double reference_ms = 0;
    bool same_bytes = true;
    if (reference) {
      Executor ref_exec(plan, BackendList{&int8_reference_backend(), &cpu_backend()});
      TensorMap ref_out;
      reference_ms = time_runs(ref_exec, feeds, std::max(1, repeat / 5), &ref_out);
      for (const auto& [k, t] : ref_out) {
        const Tensor& o = int8_out.at(k);
        same_bytes = same_bytes && o.dtype() == t.dtype() && o.dims() == t.dims() && std::memcmp(o.raw(), t.raw(), t.nbytes()) == 0;
      }
    }
    double ort_fp32 = 0, ort_int8 = 0;
    if (!ort_dir.empty()) {
      const fs::path work = fs::temp_directory_path() / ("q8_bench_" + std::to_string(::getpid()));
      fs::create_directories(work);
      const std::string input_file = (work / "input.npy").string();
      write_npy(input_file, x);
      ort_fp32 = ort_ms(ort_dir, model, work, input + "=" + input_file, threads, repeat);
      ort_int8 = ort_ms(ort_dir, qdq_model, work, input + "=" + input_file, threads, repeat);
      fs::remove_all(work);
    }
    const std::string label = name.empty() ? fs::path(model).filename().string() : name;
    std::printf("%-24s %-18s threads %2d | q8 FP32 %8.2f ms | q8 INT8 %8.2f ms (%.2fx FP32)", label.c_str(), shape_arg.c_str(), threads,
                fp32_ms, int8_ms, fp32_ms / int8_ms);
    if (reference) std::printf(" | reference %8.2f ms, same bytes: %s", reference_ms, same_bytes ? "yes" : "NO");
    if (!ort_dir.empty())
      std::printf(" | ORT FP32 %8.2f ms | ORT INT8 %8.2f ms | ORT INT8 / q8 INT8 %.2fx", ort_fp32, ort_int8, ort_int8 / int8_ms);
    std::printf("\n");
    if (!json.empty()) {
      std::ostringstream j;
      j << "{\n  \"benchmark\": \"int8_inference\",\n  \"name\": \"" << label << "\",\n  \"model\": \"" << model << "\",\n  \"qdq\": \""
        << qdq_model << "\",\n  \"shape\": \"" << shape_arg << "\",\n  \"threads\": " << threads << ",\n  \"repeat\": " << repeat
        << ",\n  \"onednn_isa\": \"" << onednn_isa_name() << "\",\n  \"q8_fp32_ms\": " << fp32_ms << ",\n  \"q8_int8_ms\": " << int8_ms
        << ",\n  \"q8_int8_speedup_over_fp32\": " << fp32_ms / int8_ms;
      if (reference) j << ",\n  \"reference_ms\": " << reference_ms << ",\n  \"same_bytes_as_reference\": " << (same_bytes ? "true" : "false");
      if (!ort_dir.empty())
        j << ",\n  \"ort_fp32_ms\": " << ort_fp32 << ",\n  \"ort_int8_ms\": " << ort_int8 << ",\n  \"ort_int8_over_q8_int8\": " << ort_int8 / int8_ms;
      j << "\n}\n";
      write_file_atomically(json, j.str());
    }
    if (!same_bytes) return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "int8_inference: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
