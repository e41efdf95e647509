// q8 build QDQ_MODEL -o PLAN [--shape NAME=DIMS]... [--device opencl[:N]]: lowers a QDQ model into
// the INT8 engine's fused integer ops and writes a plan file (docs/plan.md): the lowering report,
// where each node runs, a memory plan for the given input shapes, and with --device that device's
// tuning.
#include <algorithm>
#include <cstdio>
#include <map>

#include "engine/io/atomic_write.h"
#include "engine/io/log.h"
#include "engine/io/sha256.h"
#include "engine/onnx/import.h"
#include "engine/plan/build_plan.h"
#include "engine/runtime/backends.h"
#include "tools/q8/commands.h"
#include "tools/q8/tensor_args.h"
#include "tools/q8/validators.h"

namespace q8::cli {

namespace {

struct BuildOptions {
  std::string model;
  std::string output;
  std::vector<std::string> shapes;  // NAME=1x3x224x224
  std::string device = "cpu";       // opencl[:N]: record that device's tuning
};

void print_report(const BuiltPlan& b, bool verbose) {
  const Lowered& l = b.lowered;
  std::map<std::string, int> fused;
  for (const Node& n : l.graph.nodes)
    if (!n.domain.empty()) ++fused[n.op_type];
  const std::string report = format_lowering_report(l);
  log::info("%s", report.substr(0, report.find('\n') + 1).c_str());  // the summary line
  for (const auto& [op, count] : fused) log::info("  %-16s %d\n", op.c_str(), count);
  for (const LoweringEntry& e : l.report)
    if (verbose || !e.reason.empty()) log::info("  %s → %s%s\n", e.node.c_str(), e.outcome.c_str(), e.reason.empty() ? "" : (": " + e.reason).c_str());
  log::info("placement: %s\n%s", placement_summary(b.placement, b.shape_work).c_str(), (verbose ? b.placement_report : b.fallbacks).c_str());
}

void build(const BuildOptions& o) {
  log::info("=== q8 build ===\nmodel:   %s\noutput:  %s\ndevice:  %s\n", o.model.c_str(), o.output.c_str(),
            !is_opencl_device(o.device) ? "none (no device section)" : describe_device(o.device).c_str());
  check_output_file("-o", o.output, {{"the model", o.model}});
  const std::string device = device_section(o.device);
  const std::string bytes = read_file(o.model);
  const Graph qdq = load_model(o.model);
  std::string deferred;
  BuiltPlan b = build_plan_or_defer_memory(qdq, sha256_hex(bytes), input_descs(qdq, o.shapes), !o.shapes.empty(), backends_for(o.device),
                                           deferred);
  if (!deferred.empty())
    log::warn("no memory plan: the dynamic dims at 1 do not fit the model (%s); give --shape NAME=DxD… for one. The memory "
              "is planned at the first run\n", deferred.c_str());
  b.plan.device = device;
  log::info("shapes:  %s\n", b.plan.shapes.c_str());
  print_report(b, log::level() == log::Level::Debug);
  int64_t all_bytes = 0;
  for (const BufferLifetime& v : b.sizes.values) all_bytes += v.bytes;
  log::info("memory plan: %zu buffers the executor allocates, arena %.2f MiB (peak), %.2f MiB without reuse; %zu values, %.2f MiB in all\n",
            b.plan.buffers.size(), double(b.plan.memory.arena_bytes) / 1048576.0, double(b.plan.memory.total_bytes) / 1048576.0,
            b.sizes.values.size(), double(all_bytes) / 1048576.0);
  if (!b.sizes.unsized.empty())
    log::info("  %zu values sized only as the model runs (their shape depends on data), first '%s'\n", b.sizes.unsized.size(),
              b.sizes.unsized[0].c_str());
  const std::string plan = serialize_plan(b.plan);
  if (!device.empty()) log::info("device section: the tiles above, for %s\n", o.device.c_str());
  write_file_atomically(o.output, plan);
  log::info("wrote %s (%zu bytes, sha256 %s)\n", o.output.c_str(), plan.size(), sha256_hex(plan).c_str());
}

}  // namespace

void add_build_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("build", "Lower a QDQ model into fused INT8 ops and write a plan file");
  auto o = std::make_shared<BuildOptions>();
  cmd->add_option("model", o->model, "QDQ ONNX model (from q8 quantize, or any symmetric int8 QDQ model)")->required();
  cmd->add_option("-o,--output", o->output, "plan file to write (.q8plan)")->required();
  cmd->add_option("--shape", o->shapes, "NAME=DxDx… input shape the memory plan is for (dynamic dims default to 1)");
  cmd->add_option("--device", o->device, "opencl[:N]: record that device's tuning (tuning database, else q8's entry) in the plan")
      ->check(device_name());
  cmd->callback([o] { build(*o); });
}

}  // namespace q8::cli
