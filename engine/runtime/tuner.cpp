#include "engine/runtime/tuner.h"

#if Q8_WITH_OPENCL
#include <cmath>
#include <cstring>
#include <memory>
#include <random>

#include <nlohmann/json.hpp>

#include "engine/exec/node_runner.h"
#include "engine/runtime/devices.h"

namespace q8 {

namespace {

// One shape's QGemm with its int32 bias and requantizing epilogue, ready to run on the device.
class ShapeRun {
 public:
  ShapeRun(const Backend& backend, const TuningShape& c)
      : x_(DType::Int8, {c.rows, c.k}), w_(DType::Int8, {c.n, c.k}), b_(DType::Int32, {c.n}), m_(DType::Float32, {c.n}), backend_(backend) {
    std::mt19937 rng(uint32_t(c.rows * 31 + c.k * 7 + c.n));
    for (int8_t& v : x_.values<int8_t>()) v = int8_t(int(rng() % 255) - 127);
    for (int8_t& v : w_.values<int8_t>()) v = int8_t(int(rng() % 255) - 127);
    for (int32_t& v : b_.values<int32_t>()) v = int32_t(rng() % 20001) - 10000;
    // Multipliers that keep the outputs spread over int8 (sums of k products of ±127 · ±127 / 3).
    for (float& v : m_.values<float>()) v = float(100.0 / (127.0 * 127.0 * std::sqrt(double(c.k))));
    node_.domain = kInt8Domain, node_.op_type = "QGemm", node_.name = c.name, node_.inputs = {"x", "w", "b", "m"}, node_.outputs = {"y"};
    node_.attributes["transB"] = Attribute::of_int(1);
    xd_ = backend.upload(x_);
  }
  // Makes the node again (its tile is read at run time; packing happens at create).
  void prepare() {
    prepared_ = backend_.create(node_view(node_, {&x_, &w_, &b_, &m_}, {false, true, true, true}));
    prepared_->reshape(describe(inputs()));
  }
  void run() { prepared_->run(inputs(), y_, {}); }
  Tensor output() const { return backend_.download(y_[0]); }

 private:
  Inputs inputs() const { return {&xd_, &w_, &b_, &m_}; }
  Tensor x_, w_, b_, m_, xd_;
  Node node_;
  const Backend& backend_;
  std::unique_ptr<PreparedNode> prepared_;
  std::vector<Tensor> y_ = std::vector<Tensor>(1);
};

// Seconds per run of the device's kernels (OpenCL's profiling events), over repeat runs after one
// warm-up: the host's clock would count each launch's overhead, which at 1024 × 1024 × 1024 (about
// 20 µs of kernel) moved one tile's score by a fifth between passes.
double seconds_per_run(OpenClDevice& cl, ShapeRun& c, int repeat) {
  c.run();
  cl.finish();
  cl.begin_timing();
  for (int r = 0; r < repeat; ++r) c.run();
  return cl.end_timing().kernel_ms / 1e3 / repeat;
}

// Every class given tile t, so each shape runs t whatever its class.
MmaTuning forcing(const MmaTile& t) {
  MmaTuning f{t, {}, "q8 tune"};
  for (const char* name : kMmaClasses) f.classes[name] = t;
  return f;
}

double geometric_mean(const std::vector<double>& v) {
  double log_sum = 0;
  for (double x : v) log_sum += std::log(x);
  return v.empty() ? 0 : std::exp(log_sum / double(v.size()));
}

}  // namespace

const std::vector<TuningShape>& tuning_shapes() {
  static const std::vector<TuningShape> shapes = {
      {"gemm 4096", 4096, 4096, 4096},
      {"gemm 1024", 1024, 1024, 1024},
      {"conv3x3 56x56 64", 200704, 576, 64},
      {"conv1x1 56x56 256->64", 200704, 256, 64},
      {"conv1x1 56x56 64->256", 200704, 64, 256},
      {"conv1x1 28x28 128->512", 50176, 128, 512},
      {"conv1x1 28x28 512->128", 50176, 512, 128},
      {"conv3x3 28x28 128", 50176, 1152, 128},
      {"conv3x3 14x14 256", 12544, 2304, 256},
      {"conv3x3 7x7 512", 3136, 4608, 512},
      {"conv1x1 7x7 2048->512", 3136, 2048, 512},
  };
  return shapes;
}

std::string TuneResult::figures_json() const {
  nlohmann::ordered_json figures;
  for (const auto& [name, score] : best_of_class) {
    std::vector<double> was;
    for (size_t i = 0; i < classes.size(); ++i)
      if (classes[i] == name) was.push_back(present_score.tops[i]);
    figures["classes"][name] = {{"qgemm_mma", score.tile.name()}, {"geometric_mean_tops", score.geometric_mean},
                                {"present_geometric_mean_tops", geometric_mean(was)}};
  }
  figures["geometric_mean_tops"] = tuned.geometric_mean;
  figures["present"] = present.describe();
  figures["present_geometric_mean_tops"] = present_score.geometric_mean;
  return figures.dump();
}

TuneResult tune_device(int index, int repeat, const std::function<void(const std::string&, const TileScore&)>& on_tile) {
  OpenClDevice& cl = opencl_device(index);
  const DeviceCaps& caps = cl.caps();
  check(caps.tensor_cores(), caps.describe() + " has no INT8 tensor-core kernel to tune (qgemm_mma needs NVIDIA sm_80 or later)");
  const std::vector<TuningShape>& shapes = tuning_shapes();
  TuneResult r;
  r.present = cl.mma_tuning();
  std::vector<std::unique_ptr<ShapeRun>> runs;
  for (const TuningShape& c : shapes) {
    r.classes.push_back(mma_shape_class(c.rows, c.k, c.n, caps));
    runs.push_back(std::make_unique<ShapeRun>(opencl_backend(index), c));
  }
  // One pass over every shape: TOPS each, the outputs checked against the present tuning's.
  std::vector<Tensor> expected;
  const auto time_shapes = [&](const MmaTile& tile, const std::string& label) {
    TileScore score{tile, {}, 0};
    for (size_t i = 0; i < runs.size(); ++i) {
      runs[i]->prepare();
      const double s = seconds_per_run(cl, *runs[i], repeat);
      const Tensor y = runs[i]->output();
      if (expected.size() < runs.size()) expected.push_back(y);
      else
        check(y.nbytes() == expected[i].nbytes() && std::memcmp(y.raw(), expected[i].raw(), y.nbytes()) == 0,
              "qgemm_mma " + label + " gives outputs other than the present tiles' on " + shapes[i].name + " (a kernel fault: report it)");
      score.tops.push_back(2.0 * double(shapes[i].rows) * double(shapes[i].k) * double(shapes[i].n) / s / 1e12);
    }
    score.geometric_mean = geometric_mean(score.tops);
    on_tile(label, score);
    return score;
  };
  // A GPU's clocks ramp up under load: every shape runs untimed first, so that the first tile is
  // not timed on an idle device (on the H100 it scored 142 TOPS so, against 161 warm).
  for (auto& c : runs) c->prepare(), seconds_per_run(cl, *c, repeat);
  r.present_score = time_shapes(r.present.tile, "present");
  // Per class: the best tile and its geometric mean; over all shapes: the device's tile.
  TileScore best_overall{r.present.tile, {}, 0};
  for (const MmaTile& tile : mma_candidates(caps)) {
    use_tuning(index, forcing(tile));
    const TileScore score = time_shapes(tile, tile.name());
    if (score.geometric_mean > best_overall.geometric_mean) best_overall = score;
    for (const char* name : kMmaClasses) {
      std::vector<double> mine;
      for (size_t i = 0; i < runs.size(); ++i)
        if (r.classes[i] == name) mine.push_back(score.tops[i]);
      if (mine.empty()) continue;
      const double g = geometric_mean(mine);
      if (!r.best_of_class.count(name) || g > r.best_of_class[name].geometric_mean) r.best_of_class[name] = {tile, mine, g};
    }
    r.tiles.push_back(score);
  }
  r.best = {best_overall.tile, {}, "q8 tune"};
  for (const auto& [name, score] : r.best_of_class) r.best.classes[name] = score.tile;
  use_tuning(index, r.best);
  r.tuned = time_shapes(r.best.tile, "tuning " + r.best.describe());
  return r;
}

}  // namespace q8
#endif
