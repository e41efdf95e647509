#include "quant/opset_upgrade.h"

#include <onnx/version_converter/convert.h>

#include "engine/exec/executor.h"
#include "engine/onnx/export.h"
#include "engine/onnx/import.h"

namespace q8 {

namespace {

// Every value's shape, from one run of the graph on a sample input: the converter needs shapes
// (Softmax 12 → 13 asks for its input's rank) that static inference cannot always give (Reshape
// targets computed by shape subgraphs). Dynamic dimensions take `dynamic`; the shapes recorded
// then hold the rank only, since their sizes depend on the input.
std::vector<ValueInfo> observed_shapes(const Graph& graph, int64_t dynamic) {
  TensorMap inputs;
  bool any_dynamic = false;
  for (const ValueInfo& v : graph.inputs) {
    Dims dims;
    if (v.shape)
      for (size_t i = 0; i < v.shape->size(); ++i) {
        const Dim& d = (*v.shape)[i];
        any_dynamic = any_dynamic || !d.known();
        dims.push_back(d.known() ? d.value : i == 0 ? 1 : dynamic);  // the batch stays 1
      }
    inputs[v.name] = Tensor(v.dtype, dims);
  }
  std::vector<ValueInfo> shapes;
  Executor exec(graph);
  exec.set_hook([&](const Node& node, size_t, const std::vector<Tensor>& outputs) {
    for (size_t k = 0; k < node.outputs.size() && k < outputs.size(); ++k) {
      if (node.outputs[k].empty() || outputs[k].empty()) continue;
      ValueInfo v{node.outputs[k], outputs[k].dtype(), std::vector<Dim>{}};
      for (int64_t d : outputs[k].dims()) v.shape->push_back(any_dynamic ? Dim{} : Dim{d, ""});
      shapes.push_back(std::move(v));
    }
  });
  exec.run(inputs);
  return shapes;
}

// Shapes from the first sample size the graph accepts (a detector may need its spatial dims to
// be multiples of 32), or none: the converter then works from what the model declares.
std::vector<ValueInfo> observed_shapes(const Graph& graph) {
  for (int64_t dynamic : {1, 32, 64, 224, 256, 640}) {
    try {
      return observed_shapes(graph, dynamic);
    } catch (const Error&) {
    }
  }
  return {};
}

}  // namespace

void upgrade_opset(Graph& graph, int64_t target) {
  const int64_t from = graph.opset();
  if (from >= target) return;
  onnx::ModelProto upgraded;
  try {
    Graph annotated = graph;
    annotated.value_info = observed_shapes(graph);
    upgraded = onnx::version_conversion::ConvertVersion(to_model_proto(annotated), int(target));
  } catch (const std::exception& e) {
    std::string msg = e.what();
    throw Error("cannot upgrade the model from opset " + std::to_string(from) + " to " + std::to_string(target) + " (" +
                msg.substr(0, msg.find('\n')) + "); re-export it at opset " + std::to_string(target) + " or later");
  }
  graph = parse_model(upgraded.SerializeAsString(), "", "the model upgraded to opset " + std::to_string(target));
}

}  // namespace q8
