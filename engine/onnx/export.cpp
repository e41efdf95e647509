#include "engine/onnx/export.h"

#include <algorithm>

#include <onnx/checker.h>

#include "engine/io/atomic_write.h"
#include "engine/onnx/import.h"
#include "engine/onnx/tensor_proto.h"

namespace q8 {

namespace {

void value_info_to_proto(const ValueInfo& v, onnx::ValueInfoProto& proto) {
  proto.set_name(v.name);
  if (v.dtype == DType::Undefined && !v.shape) {  // declared without a type (a subgraph's output): `type {}` as read
    proto.mutable_type();
    return;
  }
  auto* tt = proto.mutable_type()->mutable_tensor_type();
  if (v.dtype != DType::Undefined) tt->set_elem_type(dtype_to_onnx(v.dtype));
  if (!v.shape) return;
  auto* shape = tt->mutable_shape();
  for (const Dim& d : *v.shape) {
    auto* dim = shape->add_dim();
    if (d.known()) dim->set_dim_value(d.value);
    else if (!d.symbol.empty()) dim->set_dim_param(d.symbol);
  }
}

void attribute_to_proto(const std::string& name, const Attribute& a, onnx::AttributeProto& proto) {
  using A = onnx::AttributeProto;
  proto.set_name(name);
  switch (a.kind) {
    case Attribute::Kind::Float: proto.set_type(A::FLOAT); proto.set_f(a.f); break;
    case Attribute::Kind::Int: proto.set_type(A::INT); proto.set_i(a.i); break;
    case Attribute::Kind::String: proto.set_type(A::STRING); proto.set_s(a.s); break;
    case Attribute::Kind::Tensor: proto.set_type(A::TENSOR); tensor_to_proto(a.t, *proto.mutable_t()); break;
    case Attribute::Kind::Floats:
      proto.set_type(A::FLOATS);
      for (float f : a.floats) proto.add_floats(f);
      break;
    case Attribute::Kind::Ints:
      proto.set_type(A::INTS);
      for (int64_t i : a.ints) proto.add_ints(i);
      break;
    case Attribute::Kind::Strings:
      proto.set_type(A::STRINGS);
      for (const auto& s : a.strings) proto.add_strings(s);
      break;
    case Attribute::Kind::Graph: proto.set_type(A::GRAPH); break;  // written by node_to_proto, which knows the captures
  }
}

// Renames every reference to value `from` in g and the subgraphs it holds (node inputs and graph
// outputs): the outer value a subgraph reads, where the node's input carrying it was renamed.
void rename_reference(onnx::GraphProto& g, const std::string& from, const std::string& to) {
  for (auto& n : *g.mutable_node()) {
    for (auto& in : *n.mutable_input())
      if (in == from) in = to;
    for (auto& a : *n.mutable_attribute())
      if (a.has_g()) rename_reference(*a.mutable_g(), from, to);
  }
  for (auto& out : *g.mutable_output())
    if (out.name() == from) out.set_name(to);
}

// graph's body as a GraphProto; inputs named in `outer` (a subgraph's captured values) are left out.
void graph_to_proto(const Graph& graph, onnx::GraphProto& g, const std::vector<std::string>& outer = {}) {
  g.set_name(graph.name.empty() ? "q8" : graph.name);
  for (const auto& in : graph.inputs)
    if (std::find(outer.begin(), outer.end(), in.name) == outer.end()) value_info_to_proto(in, *g.add_input());
  if (graph.ir_version < 4) {  // before IR 4, every initializer is also a graph input
    for (const auto& [name, t] : graph.initializers) {
      ValueInfo v{name, t.dtype(), std::vector<Dim>{}};
      for (int64_t d : t.dims()) v.shape->push_back(Dim{d, ""});
      value_info_to_proto(v, *g.add_input());
    }
  }
  for (const auto& out : graph.outputs) value_info_to_proto(out, *g.add_output());
  for (const auto& vi : graph.value_info) value_info_to_proto(vi, *g.add_value_info());
  for (const auto& [name, t] : graph.initializers) {
    auto* init = g.add_initializer();
    tensor_to_proto(t, *init);
    init->set_name(name);
  }
  for (const Node& n : graph.nodes) node_to_proto(n, *g.add_node());
}

}  // namespace

onnx::ModelProto to_model_proto(const Graph& graph) {
  onnx::ModelProto model;
  model.set_ir_version(graph.ir_version);
  model.set_producer_name(graph.producer_name.empty() ? "q8" : graph.producer_name);
  model.set_producer_version(graph.producer_version);
  for (const auto& o : graph.opsets) {
    auto* op = model.add_opset_import();
    op->set_domain(o.domain);
    op->set_version(o.version);
  }
  for (const auto& [k, v] : graph.metadata) {
    auto* p = model.add_metadata_props();
    p->set_key(k);
    p->set_value(v);
  }
  graph_to_proto(graph, *model.mutable_graph());
  return model;
}

void node_to_proto(const Node& n, onnx::NodeProto& proto) {
  proto.set_name(n.name);
  proto.set_op_type(n.op_type);
  if (!n.domain.empty()) proto.set_domain(n.domain);
  for (size_t i = 0; i < n.onnx_inputs(); ++i) proto.add_input(n.inputs[i]);
  for (const auto& out : n.outputs) proto.add_output(out);
  for (const auto& [name, a] : n.attributes) {
    auto* attr = proto.add_attribute();
    attribute_to_proto(name, a, *attr);
    if (a.kind != Attribute::Kind::Graph) continue;
    graph_to_proto(*a.graph, *attr->mutable_g(), n.captures);
    for (size_t k = 0; k < n.captures.size(); ++k) {
      const std::string& outer = n.inputs[n.onnx_inputs() + k];
      if (outer != n.captures[k]) rename_reference(*attr->mutable_g(), n.captures[k], outer);
    }
  }
}

std::string serialize_model(const Graph& graph, const std::string& path) {
  const onnx::ModelProto model = to_model_proto(graph);
  try {
    if (graph.ir_version <= onnx::IR_VERSION && graph.opset() <= kLibOnnxOpset) onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    std::string msg = e.what();
    throw Error(path + ": the model to write fails onnx::checker: " + msg.substr(0, msg.find('\n')));
  }
  return model.SerializeAsString();
}

void save_model(const Graph& graph, const std::string& path) { write_file_atomically(path, serialize_model(graph, path)); }

}  // namespace q8
