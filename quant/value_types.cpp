#include "quant/value_types.h"

#include <set>

#include "engine/onnx/tensor_proto.h"
#include "quant/graph_constants.h"

namespace q8 {

namespace {

DType declared(const Graph& graph, const std::string& value) {
  for (const auto* list : {&graph.inputs, &graph.outputs, &graph.value_info})
    for (const ValueInfo& v : *list)
      if (v.name == value && v.dtype != DType::Undefined) return v.dtype;
  if (const Tensor* t = graph.constant(value)) return t->dtype();
  return DType::Undefined;
}

DType infer(const Graph& graph, const std::string& value, int depth) {
  if (const DType d = declared(graph, value); d != DType::Undefined) return d;
  const int p = graph.producer(value);
  if (p < 0 || depth > 256) return DType::Undefined;
  const Node& n = graph.nodes[size_t(p)];
  static const std::set<std::string> to_bool = {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Not", "And", "Or", "Xor",
                                                "IsNaN", "IsInf"};
  if (n.op_type == "Shape" || n.op_type == "Size" || n.op_type == "ArgMax" || n.op_type == "ArgMin" || n.op_type == "NonZero")
    return DType::Int64;
  if (to_bool.count(n.op_type)) return DType::Bool;
  if (n.op_type == "Cast") return dtype_from_onnx(int(n.attr_int("to", 0)), n.describe() + " attribute 'to'");
  if (n.op_type == "ConstantOfShape") {
    const Tensor* t = n.attr_tensor("value");
    return t ? t->dtype() : DType::Float32;
  }
  if (n.op_type == "Where" && n.inputs.size() > 1) return infer(graph, n.inputs[1], depth + 1);
  return n.inputs.empty() || n.inputs[0].empty() ? DType::Undefined : infer(graph, n.inputs[0], depth + 1);
}

}  // namespace

DType value_dtype(const Graph& graph, const std::string& value) { return infer(graph, value, 0); }

}  // namespace q8
