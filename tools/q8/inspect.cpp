// q8 inspect MODEL|PLAN: inputs, outputs, shapes, op counts, unsupported ops with node names; for
// a plan also its source, lowering summary, placement and memory plan.
#include <cstdio>
#include <map>

#include "engine/exec/executor.h"
#include "engine/io/atomic_write.h"
#include "engine/io/log.h"
#include "engine/onnx/import.h"
#include "engine/plan/plan_file.h"
#include "engine/runtime/backends.h"
#include "tools/q8/commands.h"

namespace q8::cli {

namespace {

void print_values(const char* title, const std::vector<ValueInfo>& values) {
  log::info("%s (%zu):\n", title, values.size());
  for (const ValueInfo& v : values)
    log::info("  %-32s %-8s %s\n", v.name.c_str(), std::string(dtype_name(v.dtype)).c_str(), v.shape_string().c_str());
}

void print_plan(const Plan& plan) {
  log::info("plan of:   QDQ model with SHA-256 %s\n", plan.source_sha256.c_str());
  log::info("%s", plan.lowering_report.substr(0, plan.lowering_report.find('\n') + 1).c_str());
  log::info("memory plan: %zu executor buffers at %s, arena %.2f MiB (peak), %.2f MiB without reuse\n", plan.buffers.size(),
              plan.shapes.c_str(), double(plan.memory.arena_bytes) / 1048576.0, double(plan.memory.total_bytes) / 1048576.0);
  const Executor exec(plan.graph, backends_for("cpu"));
  log::info("placement: %s\n%s", placement_summary(exec.placement(), exec.shape_work()).c_str(), exec.placement_report(true).c_str());
}

void inspect(const std::string& path) {
  const std::string bytes = read_file(path);
  const bool plan = is_plan(bytes);
  const Plan parsed = plan ? parse_plan(bytes, path) : Plan{};
  const Graph g = plan ? parsed.graph : load_model(path);
  log::info("model:     %s\n", path.c_str());
  log::info("producer:  %s %s\n", g.producer_name.c_str(), g.producer_version.c_str());
  log::info("ir:        %lld\n", static_cast<long long>(g.ir_version));
  std::string opsets;
  for (const auto& o : g.opsets) opsets += " " + (o.domain.empty() ? std::string("ai.onnx") : o.domain) + ":" + std::to_string(o.version);
  log::info("opsets:   %s", opsets.c_str());
  print_values("inputs", g.inputs);
  print_values("outputs", g.outputs);
  int64_t params = 0;
  for (const auto& [name, t] : g.initializers) params += t.numel();
  log::info("initializers: %zu (%lld values)\n", g.initializers.size(), static_cast<long long>(params));
  std::map<std::string, int> counts;
  for (const Node& n : g.nodes) ++counts[n.domain.empty() ? n.op_type : n.domain + "." + n.op_type];
  log::info("nodes: %zu\n", g.nodes.size());
  for (const auto& [op, count] : counts) log::info("  %-28s %d\n", op.c_str(), count);
  const std::string unsupported = unsupported_ops(g, backends_for("cpu"));
  log::info("unsupported ops: %s\n", unsupported.empty() ? "none" : unsupported.c_str());
  if (plan) print_plan(parsed);
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("inspect", "Print a model's or plan's inputs, outputs, op counts and unsupported ops");
  auto path = std::make_shared<std::string>();
  cmd->add_option("model", *path, "ONNX model, or a plan file from q8 build")->required();
  cmd->callback([path] { inspect(*path); });
}

}  // namespace q8::cli
