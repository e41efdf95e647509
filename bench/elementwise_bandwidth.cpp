// Memory-bound ops against the machine's copy bandwidth: each op runs on a 16×32×160×160
// float32 activation (52 MB; the Transposes on 16 3-channel 224² images), and its bytes read and written per second are set beside a
// parallel memcpy's. Prints GB/s and the fraction, writes JSON.
//
//   elementwise_bandwidth [--threads T] [--repeat R] [--json OUT]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>

#include "engine/cpu/parallel.h"
#include "engine/cpu/threads.h"
#include "engine/io/atomic_write.h"
#include "engine/ops/op.h"

using namespace q8;

namespace {

struct Case {
  std::string label, op;
  std::map<std::string, Attribute> attributes;
  std::vector<const Tensor*> inputs;
  double bytes;  // read + written per run
};

template <typename F>
double median_ms(int repeat, F&& f) {
  std::vector<double> t;
  f();
  for (int i = 0; i < repeat; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Memory-bound ops against copy bandwidth"};
  int threads = 0, repeat = 15;
  std::string json;
  app.add_option("--threads", threads, "compute threads (0: one per core)");
  app.add_option("--repeat", repeat)->capture_default_str();
  app.add_option("--json", json, "write the figures here");
  CLI11_PARSE(app, argc, argv);
  try {
    if (threads > 0) set_compute_threads(threads);
    const Dims dims{16, 32, 160, 160};
    Tensor x(DType::Float32, dims), y(DType::Float32, dims), bias(DType::Float32, {1, 32, 1, 1});
    std::mt19937 rng(1);
    std::normal_distribution<float> d(0.0f, 2.0f);
    for (float& v : x.values<float>()) v = d(rng);
    for (float& v : y.values<float>()) v = d(rng);
    for (float& v : bias.values<float>()) v = d(rng);
    const Tensor lo = Tensor::scalar<float>(0.0f), hi = Tensor::scalar<float>(6.0f);
    const Tensor scales = Tensor::from_vector<float>({4}, {1, 1, 2, 2});
    const Tensor roi(DType::Float32, {0});
    const double n = double(x.numel()) * 4;
    // A batch of 3-channel images into channels-last and back (the layout pass's first and last
    // Transposes on a CNN's input): the few-rows (few-columns) path of engine/cpu/transpose.cpp.
    Tensor images(DType::Float32, {16, 3, 224, 224}), images_last(DType::Float32, {16, 224, 224, 3});
    for (float& v : images.values<float>()) v = d(rng);
    for (float& v : images_last.values<float>()) v = d(rng);
    const double image_bytes = double(images.numel()) * 4;
    const std::vector<Case> cases = {
        {"Relu", "Relu", {}, {&x}, 2 * n},
        {"Clip (ReLU6)", "Clip", {}, {&x, &lo, &hi}, 2 * n},
        {"HardSwish", "HardSwish", {}, {&x}, 2 * n},
        {"Sigmoid", "Sigmoid", {}, {&x}, 2 * n},
        {"Add (same shape)", "Add", {}, {&x, &y}, 3 * n},
        {"Add (per-channel)", "Add", {}, {&x, &bias}, 2 * n},
        {"Mul (same shape)", "Mul", {}, {&x, &y}, 3 * n},
        {"Resize nearest 2x", "Resize", {{"mode", Attribute::of_string("nearest")}}, {&x, &roi, &scales}, 5 * n},
        {"Resize linear 2x", "Resize", {{"mode", Attribute::of_string("linear")}}, {&x, &roi, &scales}, 5 * n},
        {"MaxPool 2x2 s2", "MaxPool", {{"kernel_shape", Attribute::of_ints({2, 2})}, {"strides", Attribute::of_ints({2, 2})}},
         {&x}, 1.25 * n},
        {"AveragePool 3x3 s1", "AveragePool", {{"kernel_shape", Attribute::of_ints({3, 3})}, {"pads", Attribute::of_ints({1, 1, 1, 1})}},
         {&x}, 2 * n},
        {"Transpose 3ch to last", "Transpose", {{"perm", Attribute::of_ints({0, 2, 3, 1})}}, {&images}, 2 * image_bytes},
        {"Transpose 3ch to first", "Transpose", {{"perm", Attribute::of_ints({0, 3, 1, 2})}}, {&images_last}, 2 * image_bytes},
    };
    // The reference: a parallel copy of the same bytes (read + write).
    Tensor copy(DType::Float32, dims);
    const double copy_ms = median_ms(repeat, [&] {
      const int64_t chunk = 1 << 16;
      parallel_for((x.numel() + chunk - 1) / chunk, 1, [&](int64_t c0, int64_t c1) {
        const int64_t b = c0 * chunk, e = std::min(x.numel(), c1 * chunk);
        std::memcpy(copy.data<float>() + b, x.data<float>() + b, size_t(e - b) * 4);
      });
    });
    const double copy_gbs = 2 * n / copy_ms / 1e6;
    std::printf("threads %d, activation %s float32 (%.0f MB)\n", compute_threads(), dims_to_string(dims).c_str(), n / 1e6);
    std::printf("  %-22s %8.2f ms %7.1f GB/s\n", "memcpy (reference)", copy_ms, copy_gbs);
    std::ostringstream j;
    j << "{\"benchmark\": \"elementwise_bandwidth\", \"threads\": " << compute_threads() << ", \"copy_gb_per_s\": " << copy_gbs
      << ", \"ops\": [";
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      Node node;
      node.op_type = c.op;
      node.name = "bench";
      node.outputs = {"y"};
      node.attributes = c.attributes;
      const auto op = find_op(c.op)->create(node, OpContext{13, {}});
      const double ms = median_ms(repeat, [&] { op->run(c.inputs); });
      const double gbs = c.bytes / ms / 1e6;
      std::printf("  %-22s %8.2f ms %7.1f GB/s  %5.0f %% of copy\n", c.label.c_str(), ms, gbs, 100 * gbs / copy_gbs);
      j << (i ? ", " : "") << "{\"op\": \"" << c.label << "\", \"ms\": " << ms << ", \"gb_per_s\": " << gbs
        << ", \"fraction_of_copy\": " << gbs / copy_gbs << "}";
    }
    j << "]}\n";
    if (!json.empty()) write_file_atomically(json, j.str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "elementwise_bandwidth: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
