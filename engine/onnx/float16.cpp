#include "engine/onnx/float16.h"

#include <memory>

namespace q8 {

namespace {

constexpr int kOnnxFloat = 1, kOnnxFloat16 = 10;

struct Counts {
  size_t tensors = 0, nodes = 0, boundary = 0;
};

void widen_types(std::vector<ValueInfo>& values) {
  for (ValueInfo& v : values)
    if (v.dtype == DType::Float16) v.dtype = DType::Float32;
}

// A name no value of the graph has.
std::string fresh_name(const Graph& g, const std::string& base) {
  std::string name = base;
  auto used = [&](const std::string& n) {
    if (g.initializers.count(n)) return true;
    for (const ValueInfo& v : g.inputs)
      if (v.name == n) return true;
    for (const Node& node : g.nodes)
      for (const auto& o : node.outputs)
        if (o == n) return true;
    return false;
  };
  for (int i = 1; used(name); ++i) name = base + "_" + std::to_string(i);
  return name;
}

Node cast(const std::string& in, const std::string& out, int to) {
  Node n;
  n.op_type = "Cast", n.name = out + "_Cast", n.inputs = {in}, n.outputs = {out};
  n.attributes["to"] = Attribute::of_int(to);
  return n;
}

void convert(Graph& g, bool top, Counts& c) {
  for (auto& [name, t] : g.initializers)
    if (t.dtype() == DType::Float16) t = t.widened(), ++c.tensors;
  for (Node& n : g.nodes) {
    for (auto& [name, a] : n.attributes) {
      if (a.kind == Attribute::Kind::Tensor && a.t.dtype() == DType::Float16) a.t = a.t.widened(), ++c.tensors;
      if (a.kind == Attribute::Kind::Graph) {
        auto copy = std::make_shared<Graph>(*a.graph);
        convert(*copy, false, c);
        a.graph = std::move(copy);
      }
    }
    if (n.domain.empty() && (n.op_type == "Cast" || n.op_type == "EyeLike") && n.has(n.op_type == "Cast" ? "to" : "dtype")) {
      Attribute& to = n.attributes.at(n.op_type == "Cast" ? "to" : "dtype");
      if (to.kind == Attribute::Kind::Int && to.i == kOnnxFloat16) to.i = kOnnxFloat, ++c.nodes;
    }
  }
  widen_types(g.value_info);
  if (!top) {  // a subgraph's own inputs and outputs are internal values
    widen_types(g.inputs), widen_types(g.outputs);
    return;
  }
  // The model's float16 inputs and outputs stay float16: Casts at the boundary.
  std::vector<Node> front, back;
  for (ValueInfo& in : g.inputs) {
    if (in.dtype != DType::Float16) continue;
    const std::string inside = fresh_name(g, in.name + "_float32");
    for (Node& n : g.nodes)
      for (auto& i : n.inputs)
        if (i == in.name) i = inside;
    front.push_back(cast(in.name, inside, kOnnxFloat));
    ++c.boundary;
  }
  for (ValueInfo& out : g.outputs) {
    if (out.dtype != DType::Float16 || g.find_input(out.name)) continue;  // an input passed straight out stays as it is
    const std::string inside = fresh_name(g, out.name + "_float32");
    for (Node& n : g.nodes) {
      for (auto& o : n.outputs)
        if (o == out.name) o = inside;
      for (auto& i : n.inputs)
        if (i == out.name) i = inside;
    }
    back.push_back(cast(inside, out.name, kOnnxFloat16));
    ++c.boundary;
  }
  g.nodes.insert(g.nodes.begin(), front.begin(), front.end());
  g.nodes.insert(g.nodes.end(), back.begin(), back.end());
}

}  // namespace

std::string float16_to_float32(Graph& graph) {
  Counts c;
  convert(graph, true, c);
  if (c.tensors + c.nodes + c.boundary == 0) return "";
  return "float16 computed as float32: " + std::to_string(c.tensors) + " float16 constants widened, " + std::to_string(c.nodes) +
         " Casts to float16 made Casts to float32, " + std::to_string(c.boundary) + " float16 inputs and outputs cast at the boundary";
}

}  // namespace q8
