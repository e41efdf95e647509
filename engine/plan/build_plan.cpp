#include "engine/plan/build_plan.h"

#include <algorithm>

#include "engine/io/numbers.h"
#include "engine/passes/optimize_for_inference.h"
#include "engine/plan/cpu_int8/backend.h"

namespace q8 {

std::string describe_shapes(const InputDescs& inputs) {
  std::string s;
  for (const auto& [name, d] : inputs) {
    std::string dims;
    for (size_t i = 0; i < d.dims.size(); ++i) dims += (i ? "x" : "") + std::to_string(d.dims[i]);
    s += (s.empty() ? "" : ",") + name + "=" + dims;
  }
  return s;
}

std::string describe_shapes(const TensorMap& inputs) {
  InputDescs descs;
  for (const auto& [name, t] : inputs) descs[name] = t.desc();
  return describe_shapes(descs);
}

InputDescs parse_shapes(const std::string& text, const Graph& graph, const std::string& what) {
  InputDescs out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t eq = item.rfind('=');
    check(eq != std::string::npos, what + ": shapes '" + text + "' are not NAME=DIMS,…");
    const ValueInfo* input = graph.find_input(item.substr(0, eq));
    check(input != nullptr, what + ": shapes name '" + item.substr(0, eq) + "', which is no input of the plan");
    Dims dims;
    for (size_t at = eq + 1; at <= item.size();) {
      const size_t x = item.find('x', at);
      const std::string part = item.substr(at, x == std::string::npos ? std::string::npos : x - at);
      if (!part.empty()) dims.push_back(parse_int(part, what + ": shapes '" + text + "'"));
      if (x == std::string::npos) break;
      at = x + 1;
    }
    out[input->name] = {input->dtype, dims};
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

InputDescs plan_input_descs(const Graph& graph, const std::map<std::string, Dims>& fixed, const std::string& what,
                            const std::set<std::string>& given) {
  std::string names;
  for (const auto& v : graph.inputs) names += (names.empty() ? "" : ", ") + v.name;
  for (const auto& [name, dims] : fixed)
    check_argument(graph.find_input(name), what + " " + name + ": matches no model input (model inputs: " + names + ")");
  InputDescs out;
  for (const auto& v : graph.inputs) {
    if (given.count(v.name)) continue;
    Dims dims;
    if (const auto it = fixed.find(v.name); it != fixed.end()) {
      dims = it->second;
    } else {
      check_argument(v.shape.has_value(), "input '" + v.name + "' has no declared shape; give " + what + " for it");
      for (const Dim& d : *v.shape) dims.push_back(d.known() ? d.value : 1);
    }
    checked_bytes(v.dtype, dims);  // every dim >= 0, within the memory limit
    out[v.name] = {v.dtype, dims};
  }
  return out;
}

BuiltPlan build_plan_or_defer_memory(const Graph& qdq, const std::string& source_sha256, const InputDescs& inputs,
                                     bool shapes_asked, const BackendList& backends, std::string& deferred) {
  deferred.clear();
  try {
    return build_plan(qdq, source_sha256, inputs, backends);
  } catch (const Error& e) {
    const bool dynamic = std::any_of(qdq.inputs.begin(), qdq.inputs.end(), [](const ValueInfo& v) {
      return !v.shape || std::any_of(v.shape->begin(), v.shape->end(), [](const Dim& d) { return !d.known(); });
    });
    if (shapes_asked || !dynamic) throw;
    deferred = e.what();
    return build_plan(qdq, source_sha256, {}, backends);
  }
}

BuiltPlan build_plan(const Graph& qdq, const std::string& source_sha256, const InputDescs& inputs, const BackendList& backends) {
  BuiltPlan b;
  b.lowered = lower_qdq(qdq);
  b.plan.graph = b.lowered.graph;
  b.plan.source_sha256 = source_sha256;
  b.plan.lowering_report = format_lowering_report(b.lowered);
  b.plan.shapes = describe_shapes(inputs);

  Executor exec(b.plan.graph, backends);
  b.placement = exec.placement();
  b.shape_work = exec.shape_work();
  b.placement_report = exec.placement_report();
  b.fallbacks = exec.placement_report(true);
  if (inputs.empty()) return b;  // no shapes: no memory plan; the executor plans at the first run
  std::vector<TensorDesc> descs;
  for (const ValueInfo& v : b.plan.graph.inputs) {
    const auto it = inputs.find(v.name);
    check(it != inputs.end(), "input '" + v.name + "' has no shape to build the plan for");
    descs.push_back(it->second);
  }
  // On the CPU INT8 backend the graph runs after the layout pass (q8 run and bench at their
  // default level, Python's Plan.run): the memory plan is that graph's.
  if (!backends.empty() && backends.front() == &cpu_int8_backend()) {
    Graph laid_out = b.plan.graph;
    optimize_for_inference(laid_out, GraphOptimizationLevel::All, true);
    b.sizes = Executor(std::move(laid_out), backends).trace_sizes(descs);
  } else {
    b.sizes = exec.trace_sizes(descs);
  }
  b.plan.buffers = b.sizes.owned;
  b.plan.memory = plan_memory(b.plan.buffers);
  return b;
}

}  // namespace q8
