#include "engine/exec/executor.h"

#include <set>

namespace q8 {

namespace {
const Backend* place(const Node& node, const BackendList& backends) {
  for (const Backend* b : backends)
    if (b->supports(node)) return b;
  return nullptr;
}
}  // namespace

std::string unsupported_ops(const Graph& graph, const BackendList& backends) {
  std::map<std::string, std::vector<std::string>> by_op;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& n = graph.nodes[i];
    if (place(n, backends)) continue;
    const std::string op = n.domain.empty() ? n.op_type : n.domain + "." + n.op_type;
    by_op[op].push_back(n.name.empty() ? "node " + std::to_string(i) : n.name);
  }
  std::string out;
  for (const auto& [op, names] : by_op) {
    out += (out.empty() ? "" : ", ") + op + " (";
    for (size_t i = 0; i < names.size(); ++i) out += (i ? ", '" : "'") + names[i] + "'";
    out += ")";
  }
  return out;
}

namespace {
std::string node_context(const Node& node, size_t index) { return node.describe() + " (node " + std::to_string(index) + ")"; }
}  // namespace

Executor::Executor(Graph graph, const BackendList& backends) : graph_(std::move(graph)) {
  const std::string unsupported = unsupported_ops(graph_, backends);
  check(unsupported.empty(), "unsupported ops: " + unsupported);
  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    OpContext ctx{graph_.opset(), {}};
    for (const auto& in : graph_.nodes[i].inputs) ctx.constant_inputs.push_back(graph_.constant(in) != nullptr);
    const Backend* backend = place(graph_.nodes[i], backends);
    placement_.push_back(backend->name());
    try {
      prepared_.push_back(backend->prepare(graph_.nodes[i], ctx));
    } catch (const Error& e) {
      throw e.with_context(node_context(graph_.nodes[i], i));
    }
  }
  // Free each intermediate after the last node that reads it (graph outputs are kept).
  std::set<std::string> keep;
  for (const auto& o : graph_.outputs) keep.insert(o.name);
  std::map<std::string, size_t> last;
  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    for (const auto& in : graph_.nodes[i].inputs)
      if (!in.empty()) last[in] = i;
    for (const auto& out : graph_.nodes[i].outputs)
      if (!out.empty() && !last.count(out)) last[out] = i;  // never read: free at once
  }
  frees_after_.resize(graph_.nodes.size());
  for (const auto& [name, i] : last)
    if (!keep.count(name) && !graph_.initializers.count(name)) frees_after_[i].push_back(name);
}

void Executor::check_inputs(const TensorMap& inputs) const {
  std::string names;
  for (const auto& v : graph_.inputs) names += (names.empty() ? "" : ", ") + v.name;
  for (const auto& [name, t] : inputs)
    check(graph_.find_input(name) != nullptr, "input '" + name + "' matches no model input (model inputs: " + names + ")");
  for (const auto& v : graph_.inputs) {
    auto it = inputs.find(v.name);
    check(it != inputs.end(), "input '" + v.name + "' is missing (model inputs: " + names + ")");
    const Tensor& t = it->second;
    check(t.dtype() == v.dtype, "input '" + v.name + "' is " + std::string(dtype_name(t.dtype())) + ", the model expects " +
                                    std::string(dtype_name(v.dtype)));
    if (!v.shape) continue;
    const std::string fits = "input '" + v.name + "' has shape " + dims_to_string(t.dims()) + ", the model expects " +
                             v.shape_string();
    check(t.rank() == v.shape->size(), fits + " (rank " + std::to_string(t.rank()) + " vs " + std::to_string(v.shape->size()) + ")");
    for (size_t d = 0; d < t.rank(); ++d)
      check(!(*v.shape)[d].known() || (*v.shape)[d].value == t.dim(d),
            fits + " (axis " + std::to_string(d) + " is " + std::to_string(t.dim(d)) + ", expected " +
                std::to_string((*v.shape)[d].value) + ")");
  }
}

TensorMap Executor::run(const TensorMap& inputs) {
  check_inputs(inputs);
  TensorMap values = graph_.initializers;
  for (const auto& [name, t] : inputs) values[name] = t;
  Inputs args;
  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    const Node& node = graph_.nodes[i];
    args.clear();
    for (const auto& in : node.inputs) {
      if (in.empty()) {
        args.push_back(nullptr);
        continue;
      }
      auto it = values.find(in);
      check(it != values.end(), node_context(node, i) + ": input '" + in + "' has no value");
      args.push_back(it->second.empty() ? nullptr : &it->second);
    }
    while (!args.empty() && args.back() == nullptr) args.pop_back();
    std::vector<Tensor> outputs;
    try {
      outputs = prepared_[i]->run(args);
    } catch (const Error& e) {
      throw e.with_context(node_context(node, i));
    }
    size_t needed = 0;
    for (size_t k = 0; k < node.outputs.size(); ++k)
      if (!node.outputs[k].empty()) needed = k + 1;
    check(outputs.size() >= needed, node_context(node, i) + ": produced " + std::to_string(outputs.size()) +
                                        " outputs, the model uses " + std::to_string(needed));
    live_values_ = values.size() - graph_.initializers.size() + outputs.size();
    if (hook_) hook_(node, i, outputs);
    for (size_t k = 0; k < node.outputs.size() && k < outputs.size(); ++k)
      if (!node.outputs[k].empty()) values[node.outputs[k]] = std::move(outputs[k]);
    for (const auto& name : frees_after_[i]) values.erase(name);
  }
  TensorMap result;
  for (const auto& o : graph_.outputs) {
    auto it = values.find(o.name);
    check(it != values.end() && !it->second.empty(), "graph output '" + o.name + "' was not produced");
    result[o.name] = it->second;
  }
  return result;
}

}  // namespace q8
