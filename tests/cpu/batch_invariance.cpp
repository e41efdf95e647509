// A sample's FP32 results do not depend on its batch (DESIGN.md decision 7, docs/cpu.md): every
// per-sample intermediate a calibrator observes is bit-identical whatever batch size the sample
// rides in, its position in the batch and the thread count.
//
//   batch_invariance MODEL [--size HxW] [--samples N]
//
// Runs N random samples (default 64) once as one batch on all threads (the reference), then in
// batches of 1, 2, 3, 7, 32 and N, in the given and in a shuffled order, on 1, 2, 3 and all
// threads, and compares every node output whose first axis is the batch with the reference's rows,
// bit for bit. Dynamic dims other than the batch take --size (spatial) or 1. Prints each
// configuration and ends with 'N passed, M failed'.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/exec/executor.h"
#include "engine/cpu/gemm.h"
#include "engine/cpu/threads.h"
#include "engine/onnx/import.h"

using namespace q8;

namespace {

// Every float output of every node, by node index and output slot.
using Recorded = std::map<std::pair<size_t, size_t>, Tensor>;

Recorded run_recording(Executor& exec, const TensorMap& inputs) {
  Recorded rec;
  exec.set_hook([&](const Node&, size_t index, const std::vector<Tensor>& outputs) {
    for (size_t k = 0; k < outputs.size(); ++k)
      if (!outputs[k].empty() && outputs[k].dtype() == DType::Float32 && outputs[k].rank() >= 1)
        rec[{index, k}] = outputs[k].clone();
  });
  exec.run(inputs);
  exec.set_hook(nullptr);
  return rec;
}

// Rows [first, first + count) of each input, gathered in `order`.
TensorMap gather(const TensorMap& all, const std::vector<int64_t>& order, size_t first, size_t count) {
  TensorMap out;
  for (const auto& [name, t] : all) {
    Dims d = t.dims();
    const size_t row = t.nbytes() / size_t(d[0]);
    d[0] = int64_t(count);
    Tensor chunk(t.dtype(), d);
    for (size_t i = 0; i < count; ++i) std::memcpy(chunk.raw() + i * row, t.raw() + size_t(order[first + i]) * row, row);
    out[name] = std::move(chunk);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: batch_invariance MODEL [--size HxW] [--samples N]\n");
    return 2;
  }
  int64_t height = 16, width = 16, samples = 64;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--size") std::sscanf(value.c_str(), "%ldx%ld", &height, &width);
    else if (flag == "--samples") samples = std::stol(value);
  }
  try {
    Executor exec(load_model(argv[1]));
    // Inputs: N samples, dynamic spatial dims from --size.
    TensorMap all;
    std::mt19937 rng(7);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    for (const ValueInfo& v : exec.graph().inputs) {
      Dims dims;
      for (size_t d = 0; d < v.shape->size(); ++d) {
        const Dim& dim = (*v.shape)[d];
        dims.push_back(d == 0 ? samples : dim.known() ? dim.value : d + 2 == v.shape->size() ? height : width);
      }
      Tensor t(DType::Float32, dims);
      for (float& x : t.values<float>()) x = dist(rng);
      all[v.name] = std::move(t);
    }
    const int all_threads = int(std::max(1u, std::thread::hardware_concurrency()));
    set_compute_threads(all_threads);
    std::vector<int64_t> identity(static_cast<size_t>(samples));
    std::iota(identity.begin(), identity.end(), 0);
    const Recorded reference = run_recording(exec, all);
    size_t per_sample_tensors = 0;
    for (const auto& [key, t] : reference) per_sample_tensors += t.dim(0) == samples;
    std::printf("%s: %zu per-sample tensors, %ld samples, GEMM %s\n", argv[1], per_sample_tensors, long(samples),
                std::string(gemm_isa()).c_str());

    std::vector<int64_t> shuffled = identity;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(11));
    int passed = 0, failed = 0;
    for (int threads : {1, 2, 3, all_threads}) {
      set_compute_threads(threads);
      for (int64_t batch : {int64_t(1), int64_t(2), int64_t(3), int64_t(7), int64_t(32), samples}) {
        for (const auto* order : {&identity, &shuffled}) {
          std::string first_diff;
          size_t compared = 0;
          for (size_t first = 0; first < size_t(samples); first += size_t(batch)) {
            const size_t count = std::min(size_t(batch), size_t(samples) - first);
            const Recorded got = run_recording(exec, gather(all, *order, first, count));
            for (const auto& [key, ref] : reference) {
              if (ref.dim(0) != samples) continue;  // not per-sample
              const Tensor& t = got.at(key);
              const size_t row = ref.nbytes() / size_t(samples);
              if (t.dim(0) != int64_t(count) || t.nbytes() / count != row) {
                first_diff = "node " + std::to_string(key.first) + " has shape " + dims_to_string(t.dims());
                continue;
              }
              for (size_t i = 0; i < count && first_diff.empty(); ++i, ++compared) {
                const int64_t s = (*order)[first + i];
                const std::byte* a = t.raw() + i * row;
                const std::byte* b = ref.raw() + size_t(s) * row;
                if (std::memcmp(a, b, row) != 0) {
                  size_t e = 0;
                  while (std::memcmp(a + e * 4, b + e * 4, 4) == 0) ++e;
                  float va, vb;
                  std::memcpy(&va, a + e * 4, 4);
                  std::memcpy(&vb, b + e * 4, 4);
                  char values[64];
                  std::snprintf(values, sizeof values, "%.9g vs %.9g", double(va), double(vb));
                  first_diff = exec.graph().nodes[key.first].describe() + " output " + std::to_string(key.second) +
                               ", sample " + std::to_string(s) + ", element " + std::to_string(e) + ": " + values +
                               " in the reference";
                }
              }
            }
          }
          const bool ok = first_diff.empty();
          (ok ? passed : failed)++;
          std::printf("%s threads %d, batch %ld, %s order: %zu sample rows %s%s\n", ok ? "ok  " : "FAIL", threads,
                      long(batch), order == &identity ? "given" : "shuffled", compared, ok ? "bit-identical" : "differ: ",
                      first_diff.c_str());
        }
      }
    }
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "batch_invariance: error: %s\n", e.what());
    return 1;
  }
}
