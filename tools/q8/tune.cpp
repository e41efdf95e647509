// q8 tune: times qgemm_mma under each candidate tile on GEMM shapes of every shape class q8's plans
// run (squares, and convolutions' im2col shapes at batch 64), checks every tile's output byte for
// byte against the present tuning's, and records the fastest tile of each class, and the fastest
// over all shapes as the device's, in the tuning database (engine/opencl/mma_tuning.h,
// docs/opencl.md "Tuning").
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <random>

#include <nlohmann/json.hpp>

#include "engine/io/atomic_write.h"
#include "engine/io/log.h"
#include "engine/ir/error.h"
#include "engine/runtime/backends.h"
#include "tools/q8/commands.h"
#include "tools/q8/validators.h"
#if Q8_WITH_OPENCL
#include "engine/opencl/device.h"
#include "engine/opencl/mma_tuning.h"
#include "engine/runtime/devices.h"
#endif

namespace q8::cli {

namespace {

struct TuneOptions {
  std::string device = "opencl", db, json;
  int repeat = 5;
  bool dry_run = false;
};

#if Q8_WITH_OPENCL
// A QGemm of x [rows, k] · wᵀ ([n, k]) with its int32 bias and requantizing epilogue, ready to run.
struct GemmCase {
  std::string name;
  int64_t rows, k, n;
};

// Squares and ResNet-50's convolution shapes at batch 64 (rows = 64 · H · W, K = C · taps), two or
// three of each shape class on a device of about 100 to 140 compute units (the class of each is
// worked out for the device at hand).
const std::vector<GemmCase> kCases = {
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

class Case {
 public:
  Case(const Backend& backend, const GemmCase& c) : x_(DType::Int8, {c.rows, c.k}), w_(DType::Int8, {c.n, c.k}), b_(DType::Int32, {c.n}),
                                                    m_(DType::Float32, {c.n}) {
    std::mt19937 rng(uint32_t(c.rows * 31 + c.k * 7 + c.n));
    for (int8_t& v : x_.values<int8_t>()) v = int8_t(int(rng() % 255) - 127);
    for (int8_t& v : w_.values<int8_t>()) v = int8_t(int(rng() % 255) - 127);
    for (int32_t& v : b_.values<int32_t>()) v = int32_t(rng() % 20001) - 10000;
    // Multipliers that keep the outputs spread over int8 (sums of k products of ±127 · ±127 / 3).
    for (float& v : m_.values<float>()) v = float(100.0 / (127.0 * 127.0 * std::sqrt(double(c.k))));
    node_.domain = kInt8Domain, node_.op_type = "QGemm", node_.name = c.name, node_.inputs = {"x", "w", "b", "m"}, node_.outputs = {"y"};
    node_.attributes["transB"] = Attribute::of_int(1);
    xd_ = backend.upload(x_);
    backend_ = &backend;
  }
  // Prepares the node again (the tile is read at run time; packing happens at create).
  void prepare() {
    NodeView view{node_, 13, {DType::Int8, DType::Int8, DType::Int32, DType::Float32}, {{}, {}, {}, {}}, {nullptr, &w_, &b_, &m_}};
    prepared_ = backend_->create(view);
    prepared_->reshape(describe(inputs()));
  }
  void run() { prepared_->run(inputs(), y_, {}); }
  Tensor output() const { return backend_->download(y_[0]); }

 private:
  Inputs inputs() const { return {&xd_, &w_, &b_, &m_}; }
  Tensor x_, w_, b_, m_, xd_;
  Node node_;
  const Backend* backend_ = nullptr;
  std::unique_ptr<PreparedNode> prepared_;
  std::vector<Tensor> y_ = std::vector<Tensor>(1);
};

// Seconds per run of the device's kernels (OpenCL's profiling events), over repeat runs after one
// warm-up: the host's clock would count each launch's overhead, which at 1024 × 1024 × 1024 (about
// 20 µs of kernel) moved one tile's score by a fifth between passes.
double seconds_per_run(OpenClDevice& cl, Case& c, int repeat) {
  c.run();
  cl.finish();
  cl.begin_timing();
  for (int r = 0; r < repeat; ++r) c.run();
  return cl.end_timing().kernel_ms / 1e3 / repeat;
}

// Every class given tile t, so each case runs t whatever its shape.
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

void tune(const TuneOptions& o) {
  check_argument(o.device != "cpu", "--device: q8 tune tunes an OpenCL device's kernels (opencl or opencl:N)");
  check_argument(o.repeat >= 1, "--repeat must be at least 1");
  const int index = device_index(o.device);
  // The device's record first: a device without the kernel is refused before its program is built.
  const std::vector<DeviceCaps> devices = list_devices();
  if (size_t(index) < devices.size())
    check_argument(devices[size_t(index)].tensor_cores(),
                   "--device: " + devices[size_t(index)].describe() + " has no INT8 tensor-core kernel to tune (qgemm_mma needs NVIDIA sm_80 or later)");
  const Backend& backend = opencl_backend(index);
  OpenClDevice& cl = opencl_device(index);
  const DeviceCaps& caps = cl.caps();
  const std::string db = o.db.empty() ? tuning_db_path() : o.db;
  check_output_file("--json", o.json, {{"--db", db}});
  const MmaTuning present = cl.mma_tuning();
  const std::vector<MmaTile> tiles = mma_candidates(caps);
  log::info("=== q8 tune ===\ndevice:     opencl:%d: %s\npresent:    qgemm_mma tiles %s (%s)\ncandidates: %zu tiles\nshapes:     %zu GEMMs "
            "(rows x K x N, class)\nrepeat:     %d runs each\ndatabase:   %s%s\n",
            index, caps.describe().c_str(), present.describe().c_str(), present.source.c_str(), tiles.size(), kCases.size(), o.repeat, db.c_str(),
            o.dry_run ? " (--dry-run: not written)" : "");
  std::vector<std::unique_ptr<Case>> cases;
  std::vector<std::string> classes;
  for (const GemmCase& c : kCases) {
    classes.push_back(mma_shape_class(c.rows, c.k, c.n, caps));
    log::info("  %-24s %7lld x %5lld x %4lld  %s\n", c.name.c_str(), static_cast<long long>(c.rows), static_cast<long long>(c.k),
              static_cast<long long>(c.n), classes.back().c_str());
    cases.push_back(std::make_unique<Case>(backend, c));
  }
  // One pass over every case: TOPS each, their outputs checked against the present tuning's.
  std::vector<Tensor> expected;
  const auto time_cases = [&](const std::string& label) {
    std::vector<double> tops;
    std::string line;
    for (size_t i = 0; i < cases.size(); ++i) {
      Case& c = *cases[i];
      c.prepare();
      const double s = seconds_per_run(cl, c, o.repeat);
      const Tensor y = c.output();
      if (expected.size() < cases.size()) expected.push_back(y);
      else
        check(y.nbytes() == expected[i].nbytes() && std::memcmp(y.raw(), expected[i].raw(), y.nbytes()) == 0,
              "qgemm_mma " + label + " gives outputs other than the present tiles' on " + kCases[i].name + " (a kernel fault: report it)");
      tops.push_back(2.0 * double(kCases[i].rows) * double(kCases[i].k) * double(kCases[i].n) / s / 1e12);
      char cell[32];
      std::snprintf(cell, sizeof cell, " %6.1f", tops.back());
      line += cell;
    }
    return std::make_pair(tops, line);
  };
  // A GPU's clocks ramp up under load: every case runs untimed first, so that the first tile is
  // not timed on an idle device (on the H100 it scored 142 TOPS so, against 161 warm).
  for (auto& c : cases) c->prepare(), seconds_per_run(cl, *c, o.repeat);
  const auto [present_tops, present_line] = time_cases("present tiles");
  log::info("[ 0/%zu] %-18s TOPS%s | geometric mean %6.1f\n", tiles.size(), "present", present_line.c_str(), geometric_mean(present_tops));
  // Per class: the best tile and its geometric mean; over all cases: the device's tile.
  std::map<std::string, std::pair<MmaTile, double>> best_of;
  std::pair<MmaTile, double> best_overall{present.tile, 0};
  nlohmann::ordered_json measured = nlohmann::ordered_json::array();
  for (size_t t = 0; t < tiles.size(); ++t) {
    use_tuning(index, forcing(tiles[t]));
    const auto [tops, line] = time_cases("tile " + tiles[t].name());
    const double score = geometric_mean(tops);
    if (score > best_overall.second) best_overall = {tiles[t], score};
    nlohmann::ordered_json by_case = nlohmann::ordered_json::object();
    for (size_t i = 0; i < cases.size(); ++i) by_case[kCases[i].name] = tops[i];
    for (const char* name : kMmaClasses) {
      std::vector<double> mine;
      for (size_t i = 0; i < cases.size(); ++i)
        if (classes[i] == name) mine.push_back(tops[i]);
      if (mine.empty()) continue;
      const double g = geometric_mean(mine);
      if (!best_of.count(name) || g > best_of[name].second) best_of[name] = {tiles[t], g};
    }
    log::info("[%2zu/%zu] %-18s TOPS%s | geometric mean %6.1f\n", t + 1, tiles.size(), tiles[t].name().c_str(), line.c_str(), score);
    measured.push_back({{"qgemm_mma", tiles[t].name()}, {"tops", by_case}, {"geometric_mean_tops", score}});
  }
  MmaTuning best{best_overall.first, {}, "q8 tune"};
  nlohmann::ordered_json figures;
  for (const auto& [name, tile_score] : best_of) {
    best.classes[name] = tile_score.first;
    std::vector<double> was;
    for (size_t i = 0; i < cases.size(); ++i)
      if (classes[i] == name) was.push_back(present_tops[i]);
    log::info("best for %-7s %-18s geometric mean %6.1f TOPS (%.2fx the present tiles)\n", name.c_str(), tile_score.first.name().c_str(),
              tile_score.second, tile_score.second / geometric_mean(was));
    figures["classes"][name] = {{"qgemm_mma", tile_score.first.name()}, {"geometric_mean_tops", tile_score.second},
                                {"present_geometric_mean_tops", geometric_mean(was)}};
  }
  use_tuning(index, best);
  const auto [tuned_tops, tuned_line] = time_cases("tuning " + best.describe());
  log::info("tuned:  %s: every case at its class's tile TOPS%s | geometric mean %.1f (%.2fx the present tiles' %.1f); every tile's outputs "
            "equal\n",
            best.describe().c_str(), tuned_line.c_str(), geometric_mean(tuned_tops), geometric_mean(tuned_tops) / geometric_mean(present_tops),
            geometric_mean(present_tops));
  figures["geometric_mean_tops"] = geometric_mean(tuned_tops);
  figures["present"] = present.describe();
  figures["present_geometric_mean_tops"] = geometric_mean(present_tops);
  if (!o.dry_run) {
    record_mma_tuning(db, caps, best, figures.dump());
    log::info("wrote %s: %s, driver %s -> %s\n", db.c_str(), caps.name.c_str(), caps.driver.c_str(), best.describe().c_str());
  }
  if (!o.json.empty()) {
    nlohmann::ordered_json j;
    j["device"] = caps.describe();
    j["cases"] = nlohmann::ordered_json::array();
    for (size_t i = 0; i < kCases.size(); ++i)
      j["cases"].push_back({{"name", kCases[i].name}, {"rows", kCases[i].rows}, {"k", kCases[i].k}, {"n", kCases[i].n}, {"class", classes[i]}});
    j["present"] = {{"tiles", present.describe()}, {"tops", present_tops}};
    j["tiles"] = measured;
    j["best"] = figures;
    j["best"]["tiles"] = best.describe();
    write_file_atomically(o.json, j.dump(2) + "\n");
  }
}
#endif

}  // namespace

void add_tune_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("tune", "Time the INT8 tensor-core GEMM's tiles on an OpenCL device and record the fastest");
  auto o = std::make_shared<TuneOptions>();
  cmd->add_option("--device", o->device, "the OpenCL device: opencl or opencl:N")->capture_default_str()->check(device_name());
  cmd->add_option("--db", o->db, "tuning database to update (default: $Q8_TUNING_DB, else ~/.cache/q8/tuning.json)");
  cmd->add_option("--repeat", o->repeat, "timed runs per tile and shape")->capture_default_str();
  cmd->add_option("--json", o->json, "write every tile's figures here");
  cmd->add_flag("--dry-run", o->dry_run, "time and compare, but write no database");
#if Q8_WITH_OPENCL
  cmd->callback([o] { tune(*o); });
#else
  cmd->callback([] { throw Error("q8 tune: this q8 was built without OpenCL (-DQ8_OPENCL=ON)"); });
#endif
}

}  // namespace q8::cli
