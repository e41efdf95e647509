#include "engine/passes/fold_constants.h"

#include <map>
#include <set>

#include "engine/exec/executor.h"
#include "engine/ops/op.h"
#include "engine/passes/graph_constants.h"

namespace q8 {

namespace {

// Every value's dims from one run on zero inputs, when all inputs have static shapes.
std::optional<std::map<std::string, Dims>> static_value_shapes(const Graph& graph) {
  TensorMap inputs;
  for (const ValueInfo& v : graph.inputs) {
    if (!v.shape) return std::nullopt;
    Dims dims;
    for (const Dim& d : *v.shape) {
      if (!d.known()) return std::nullopt;
      dims.push_back(d.value);
    }
    inputs[v.name] = Tensor(v.dtype, dims);
  }
  std::map<std::string, Dims> shapes;
  for (const auto& [name, t] : inputs) shapes[name] = t.dims();
  Executor exec(graph);
  exec.set_hook([&](const Node& node, size_t, const std::vector<Tensor>& outputs) {
    for (size_t k = 0; k < node.outputs.size() && k < outputs.size(); ++k)
      if (!outputs[k].empty()) shapes[node.outputs[k]] = outputs[k].dims();
  });
  exec.run(inputs);
  return shapes;
}

}  // namespace

ConstantFoldReport fold_constants(Graph& g) {
  ConstantFoldReport report;
  const auto shapes = static_value_shapes(g);
  report.static_shapes = shapes.has_value();
  std::set<std::string> outputs;
  for (const auto& o : g.outputs) outputs.insert(o.name);
  const OpContext ctx{g.opset(), {}};
  std::vector<Node> kept;
  for (const Node& n : g.nodes) {
    const bool constant_inputs = std::all_of(n.inputs.begin(), n.inputs.end(), [&](const std::string& in) {
      return in.empty() || g.initializers.count(in);
    });
    const bool static_shape = shapes && n.op_type == "Shape" && n.domain.empty() && !n.inputs.empty();
    const bool foldable = n.domain.empty() && find_op(n.op_type) && !n.has_subgraphs() && (constant_inputs || static_shape) &&
                          std::none_of(n.outputs.begin(), n.outputs.end(), [&](auto& o) { return outputs.count(o) > 0; });
    if (!foldable) {
      kept.push_back(n);
      continue;
    }
    std::vector<Tensor> results;
    if (static_shape && !constant_inputs) {
      Tensor dims_as_input(DType::Float32, shapes->at(n.inputs[0]));  // only its shape is read
      results = find_op("Shape")->create(n, ctx)->run({&dims_as_input});
    } else {
      Inputs args;
      for (const auto& in : n.inputs) args.push_back(in.empty() ? nullptr : &g.initializers.at(in));
      results = find_op(n.op_type)->create(n, ctx)->run(args);
    }
    for (size_t k = 0; k < n.outputs.size() && k < results.size(); ++k)
      if (!n.outputs[k].empty()) g.initializers[n.outputs[k]] = results[k];
    ++report.folded;
  }
  g.nodes = std::move(kept);
  drop_unused_initializers(g);
  return report;
}

}  // namespace q8
