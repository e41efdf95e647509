// q8 tune: times qgemm_mma under each candidate tile on GEMM shapes of every shape class q8's plans
// run (squares, and convolutions' im2col shapes at batch 64), checks every tile's output byte for
// byte against the present tuning's, and records the fastest tile of each class, and the fastest
// over all shapes as the device's, in the tuning database (engine/opencl/mma_tuning.h,
// docs/opencl.md "Tuning").
#include <cmath>
#include <cstdio>

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
#include "engine/runtime/tuner.h"
#endif

namespace q8::cli {

namespace {

struct TuneOptions {
  std::string device = "opencl", db, json;
  int repeat = 5;
  bool dry_run = false;
};

#if Q8_WITH_OPENCL
void tune(const TuneOptions& o) {
  check_argument(is_opencl_device(o.device), "--device: q8 tune tunes an OpenCL device's kernels (opencl or opencl:N)");
  check_argument(o.repeat >= 1, "--repeat must be at least 1");
  const int index = device_index(o.device);
  // The device's record first: a device without the kernel is refused before its program is built.
  const std::vector<DeviceCaps> devices = list_devices();
  if (size_t(index) < devices.size())
    check_argument(devices[size_t(index)].tensor_cores(),
                   "--device: " + devices[size_t(index)].describe() + " has no INT8 tensor-core kernel to tune (qgemm_mma needs NVIDIA sm_80 or later)");
  const DeviceCaps& caps = opencl_device(index).caps();
  const std::string db = o.db.empty() ? tuning_db_path() : o.db;
  check_output_file("--json", o.json, {{"--db", db}});
  const MmaTuning present = opencl_device(index).mma_tuning();
  const size_t candidates = mma_candidates(caps).size();
  const std::vector<TuningShape>& shapes = tuning_shapes();
  log::info("=== q8 tune ===\ndevice:     opencl:%d: %s\npresent:    qgemm_mma tiles %s (%s)\ncandidates: %zu tiles\nshapes:     %zu GEMMs "
            "(rows x K x N, class)\nrepeat:     %d runs each\ndatabase:   %s%s\n",
            index, caps.describe().c_str(), present.describe().c_str(), present.source.c_str(), candidates, shapes.size(), o.repeat, db.c_str(),
            o.dry_run ? " (--dry-run: not written)" : "");
  for (const TuningShape& c : shapes)
    log::info("  %-24s %7lld x %5lld x %4lld  %s\n", c.name.c_str(), static_cast<long long>(c.rows), static_cast<long long>(c.k),
              static_cast<long long>(c.n), mma_shape_class(c.rows, c.k, c.n, caps).c_str());
  size_t pass = 0;
  const TuneResult r = tune_device(index, o.repeat, [&](const std::string& label, const TileScore& score) {
    std::string line;
    for (double t : score.tops) {
      char cell[32];
      std::snprintf(cell, sizeof cell, " %6.1f", t);
      line += cell;
    }
    if (pass <= candidates) log::info("[%2zu/%zu] %-18s TOPS%s | geometric mean %6.1f\n", pass, candidates, label.c_str(), line.c_str(), score.geometric_mean);
    else log::info("tuned:  %s: every shape at its class's tile TOPS%s | geometric mean %.1f\n", label.c_str(), line.c_str(), score.geometric_mean);
    ++pass;
  });
  for (const auto& [name, score] : r.best_of_class) {
    std::vector<double> was;
    for (size_t i = 0; i < r.classes.size(); ++i)
      if (r.classes[i] == name) was.push_back(r.present_score.tops[i]);
    double log_sum = 0;
    for (double w : was) log_sum += std::log(w);
    log::info("best for %-7s %-18s geometric mean %6.1f TOPS (%.2fx the present tiles)\n", name.c_str(), score.tile.name().c_str(),
              score.geometric_mean, score.geometric_mean / std::exp(log_sum / double(was.size())));
  }
  log::info("tuned:  %s: %.2fx the present tiles' %.1f TOPS (geometric means); every tile's outputs equal\n", r.best.describe().c_str(),
            r.tuned.geometric_mean / r.present_score.geometric_mean, r.present_score.geometric_mean);
  if (!o.dry_run) {
    record_mma_tuning(db, caps, r.best, r.figures_json());
    log::info("wrote %s: %s, driver %s -> %s\n", db.c_str(), caps.name.c_str(), caps.driver.c_str(), r.best.describe().c_str());
  }
  if (!o.json.empty()) {
    nlohmann::ordered_json j;
    j["device"] = caps.describe();
    j["cases"] = nlohmann::ordered_json::array();
    for (size_t i = 0; i < shapes.size(); ++i)
      j["cases"].push_back({{"name", shapes[i].name}, {"rows", shapes[i].rows}, {"k", shapes[i].k}, {"n", shapes[i].n}, {"class", r.classes[i]}});
    j["present"] = {{"tiles", present.describe()}, {"tops", r.present_score.tops}};
    j["tiles"] = nlohmann::ordered_json::array();
    for (const TileScore& t : r.tiles) {
      nlohmann::ordered_json by_case = nlohmann::ordered_json::object();
      for (size_t i = 0; i < shapes.size(); ++i) by_case[shapes[i].name] = t.tops[i];
      j["tiles"].push_back({{"qgemm_mma", t.tile.name()}, {"tops", by_case}, {"geometric_mean_tops", t.geometric_mean}});
    }
    j["best"] = nlohmann::ordered_json::parse(r.figures_json());
    j["best"]["tiles"] = r.best.describe();
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
