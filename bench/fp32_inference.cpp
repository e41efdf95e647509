// FP32 CPU inference: q8's executor against ONNX Runtime (npm onnxruntime-node) in one run, on
// the same model, input and thread count; each runtime applies its own graph passes (q8's
// optimize_for_inference; ONNX Runtime runs with all its optimizations). Prints ms per run for each and the ratio q8 / ORT,
// and writes the figures as JSON.
//
//   fp32_inference --model M --shape NAME=DIMS --ort-dir DIR [--threads T] [--repeat R] [--json OUT]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>

#include "engine/cpu/threads.h"
#include "engine/exec/executor.h"
#include "engine/io/atomic_write.h"
#include "engine/io/npy.h"
#include "engine/onnx/import.h"
#include "engine/passes/optimize_for_inference.h"

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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"FP32 CPU inference: q8 vs ONNX Runtime"};
  std::string model, shape_arg, ort_dir, json, name;
  int threads = 2, repeat = 10;
  bool profile = false;
  app.add_option("--model", model)->required();
  app.add_option("--shape", shape_arg, "INPUT=DxDx…")->required();
  app.add_option("--ort-dir", ort_dir, "npm prefix holding onnxruntime-node (without it, q8 alone is timed)");
  app.add_option("--threads", threads)->capture_default_str();
  app.add_option("--repeat", repeat)->capture_default_str();
  app.add_option("--name", name, "label in the report");
  app.add_option("--json", json, "write the figures here");
  app.add_flag("--profile", profile, "print q8's time per op type");
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
    const fs::path work = fs::temp_directory_path() / ("q8_bench_" + std::to_string(::getpid()));
    fs::create_directories(work);
    const std::string input_file = (work / "input.npy").string();
    write_npy(input_file, x);

    // q8's FP32 graph passes, as ONNX Runtime applies its own.
    Graph graph = load_model(model);
    optimize_for_inference(graph);
    Executor exec(std::move(graph));
    exec.run({{input, x}});  // warm-up
    std::vector<double> times;
    for (int i = 0; i < repeat; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      exec.run({{input, x}});
      times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    if (profile) {
      std::map<std::string, double> per_op;
      auto last = std::chrono::steady_clock::now();
      exec.set_hook([&](const Node& node, size_t, const std::vector<Tensor>&) {
        const auto now = std::chrono::steady_clock::now();
        per_op[node.op_type] += std::chrono::duration<double, std::milli>(now - last).count();
        last = now;
      });
      last = std::chrono::steady_clock::now();
      exec.run({{input, x}});
      exec.set_hook(nullptr);
      for (const auto& [op, ms] : per_op) std::printf("  %-22s %8.2f ms\n", op.c_str(), ms);
    }
    std::sort(times.begin(), times.end());
    const double q8_ms = times[times.size() / 2];

    if (ort_dir.empty()) {
      fs::remove_all(work);
      std::printf("%-28s %-18s threads %d | q8 %9.2f ms (%8.1f samples/s)\n",
                  name.empty() ? fs::path(model).filename().c_str() : name.c_str(), shape_arg.c_str(), threads, q8_ms,
                  1000 * double(dims[0]) / q8_ms);
      return 0;
    }
    const std::string script = (fs::path(Q8_SOURCE_DIR) / "tests/oracle/ort_run.js").string();
    const std::string out = run_command("node " + script + " " + ort_dir + " " + model + " " + (work / "ort").string() + " " +
                                        input + "=" + input_file + " --threads " + std::to_string(threads) +
                                        " --repeat " + std::to_string(repeat));
    const size_t at = out.find("\"ort_ms_per_run\":");
    check(at != std::string::npos, "ONNX Runtime printed no timing: " + out);
    const double ort_ms = std::stod(out.substr(at + 17));
    fs::remove_all(work);

    const double batch = double(dims[0]);
    std::printf("%-28s %-18s threads %d | q8 %9.2f ms (%8.1f samples/s) | ORT %9.2f ms (%8.1f samples/s) | q8/ORT %.2fx\n",
                name.empty() ? fs::path(model).filename().c_str() : name.c_str(), shape_arg.c_str(), threads, q8_ms,
                1000 * batch / q8_ms, ort_ms, 1000 * batch / ort_ms, q8_ms / ort_ms);
    if (!json.empty()) {
      std::ostringstream j;
      j << "{\n  \"benchmark\": \"fp32_inference\",\n  \"name\": \"" << name << "\",\n  \"model\": \"" << model
        << "\",\n  \"shape\": \"" << shape_arg << "\",\n  \"threads\": " << threads << ",\n  \"repeat\": " << repeat
        << ",\n  \"q8_ms_median\": " << q8_ms << ",\n  \"ort_ms_mean\": " << ort_ms << ",\n  \"ratio_q8_over_ort\": "
        << q8_ms / ort_ms << "\n}\n";
      write_file_atomically(json, j.str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fp32_inference: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
