#include "engine/plan/build_plan.h"

#include "engine/io/atomic_write.h"
#include "engine/onnx/import.h"
#include "engine/plan/reference/backend.h"

namespace q8 {

BackendList plan_backends() { return {&int8_reference_backend(), &cpu_backend()}; }

Graph load_runnable(const std::string& path, bool int8, std::string* lowering_report) {
  const std::string bytes = read_file(path);
  if (is_plan(bytes)) return parse_plan(bytes, path).graph;
  if (!int8) return load_model(path);
  Lowered lowered = lower_qdq(load_model(path));
  if (lowering_report) *lowering_report = format_lowering_report(lowered);
  return std::move(lowered.graph);
}

std::string placement_summary(const std::vector<std::string_view>& placement) {
  std::map<std::string_view, int> placed;
  for (std::string_view p : placement) ++placed[p];
  std::string s;
  for (const auto& [backend, count] : placed) s += (s.empty() ? "" : "; ") + std::string(backend) + " " + std::to_string(count) + " nodes";
  return s;
}

std::string describe_shapes(const TensorMap& inputs) {
  std::string s;
  for (const auto& [name, t] : inputs) {
    std::string dims;
    for (size_t d = 0; d < t.rank(); ++d) dims += (d ? "x" : "") + std::to_string(t.dim(d));
    s += (s.empty() ? "" : ",") + name + "=" + dims;
  }
  return s;
}

BuiltPlan build_plan(const Graph& qdq, const std::string& source_sha256, const TensorMap& inputs) {
  BuiltPlan b;
  b.lowered = lower_qdq(qdq);
  b.plan.graph = b.lowered.graph;
  b.plan.source_sha256 = source_sha256;
  b.plan.lowering_report = format_lowering_report(b.lowered);
  b.plan.shapes = describe_shapes(inputs);

  // Lifetimes: written by node i, read last by node j (graph outputs live to the end).
  Executor exec(b.plan.graph, plan_backends());
  b.placement = exec.placement();
  std::map<std::string, size_t> index;
  exec.set_hook([&](const Node& node, size_t i, const std::vector<Tensor>& outputs) {
    for (size_t k = 0; k < outputs.size() && k < node.outputs.size(); ++k) {
      if (node.outputs[k].empty()) continue;
      index[node.outputs[k]] = b.plan.buffers.size();
      b.plan.buffers.push_back({node.outputs[k], int64_t(outputs[k].nbytes()), int(i), int(i)});
    }
  });
  exec.run(inputs);
  const Graph& g = b.plan.graph;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const auto& in : g.nodes[i].inputs)
      if (auto it = index.find(in); it != index.end()) b.plan.buffers[it->second].last = int(i);
  for (const auto& o : g.outputs)
    if (auto it = index.find(o.name); it != index.end()) b.plan.buffers[it->second].last = int(g.nodes.size());
  b.plan.memory = plan_memory(b.plan.buffers);
  return b;
}

}  // namespace q8
