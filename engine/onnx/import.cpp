#include "engine/onnx/import.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include <onnx/checker.h>

#include "engine/io/atomic_write.h"
#include "engine/io/log.h"
#include "engine/onnx/float16.h"
#include "engine/onnx/tensor_proto.h"

namespace q8 {

Tensor constant_value(const Node& node);  // engine/ops/constant.cpp

namespace {

ValueInfo value_info_from_proto(const onnx::ValueInfoProto& proto) {
  ValueInfo v;
  v.name = proto.name();
  if (!proto.type().has_tensor_type()) return v;
  const auto& tt = proto.type().tensor_type();
  if (tt.elem_type() != 0) {
    try {
      v.dtype = dtype_from_onnx(tt.elem_type(), "value '" + proto.name() + "'");
    } catch (const Error&) {
      v.dtype = DType::Undefined;  // reported where the value is used
    }
  }
  if (tt.has_shape()) {
    std::vector<Dim> dims;
    for (const auto& d : tt.shape().dim()) {
      Dim dim;
      if (d.has_dim_value() && d.dim_value() >= 0) dim.value = d.dim_value();
      else if (d.has_dim_param()) dim.symbol = d.dim_param();
      dims.push_back(dim);
    }
    v.shape = dims;
  }
  return v;
}

// What a graph and its subgraphs share while they are read.
struct ReadContext {
  std::string base_dir;               // where external data lies
  std::vector<OpsetImport> opsets;    // the model's, which every subgraph runs at
  int64_t ir_version = 8;
};

Graph graph_from_proto(const onnx::GraphProto& g, const ReadContext& ctx, bool subgraph);

Attribute attribute_from_proto(const onnx::AttributeProto& a, const ReadContext& ctx) {
  const std::string& base_dir = ctx.base_dir;
  using A = onnx::AttributeProto;
  Attribute out;
  switch (a.type()) {
    case A::FLOAT: out = Attribute::of_float(a.f()); break;
    case A::INT: out = Attribute::of_int(a.i()); break;
    case A::STRING: out = Attribute::of_string(a.s()); break;
    case A::TENSOR: out = Attribute::of_tensor(tensor_from_proto(a.t(), base_dir)); break;
    case A::FLOATS: out = Attribute::of_floats({a.floats().begin(), a.floats().end()}); break;
    case A::INTS: out = Attribute::of_ints({a.ints().begin(), a.ints().end()}); break;
    case A::STRINGS:
      out.kind = Attribute::Kind::Strings;
      out.strings.assign(a.strings().begin(), a.strings().end());
      break;
    case A::GRAPH:
      try {
        out = Attribute::of_graph(std::make_shared<Graph>(graph_from_proto(a.g(), ctx, true)));
      } catch (const Error& e) {
        throw e.with_context("subgraph '" + a.name() + "'");
      }
      break;
    default:
      throw Error("attribute '" + a.name() + "' has an unsupported kind (" + A::AttributeType_Name(a.type()) + ")");
  }
  return out;
}


Node node_from_proto(const onnx::NodeProto& proto, const ReadContext& ctx) {
  Node node;
  node.name = proto.name();
  node.op_type = proto.op_type();
  node.domain = proto.domain() == "ai.onnx" ? "" : proto.domain();
  node.inputs.assign(proto.input().begin(), proto.input().end());
  node.outputs.assign(proto.output().begin(), proto.output().end());
  for (const auto& a : proto.attribute()) {
    try {
      node.attributes[a.name()] = attribute_from_proto(a, ctx);
    } catch (const Error& e) {
      throw e.with_context(node.describe());
    }
  }
  // The outer values the subgraphs read (their inputs beyond ONNX's, subgraphs.h) become the
  // node's last inputs, in first-seen order.
  for (const auto& [name, a] : node.attributes) {
    if (a.kind != Attribute::Kind::Graph) continue;
    for (size_t i = a.graph->inputs.size() - a.graph->outer_inputs; i < a.graph->inputs.size(); ++i) {
      const std::string& v = a.graph->inputs[i].name;
      if (std::find(node.captures.begin(), node.captures.end(), v) == node.captures.end()) node.captures.push_back(v);
    }
  }
  node.inputs.insert(node.inputs.end(), node.captures.begin(), node.captures.end());
  // Every Constant carries its value as a 'value' tensor (value_float(s), value_int(s) become
  // one), so Graph::constant answers for all of them.
  if (node.op_type == "Constant" && node.domain.empty() && !node.has("value") && !node.attributes.empty()) {
    try {
      node.attributes = {{"value", Attribute::of_tensor(constant_value(node))}};
    } catch (const Error& e) {
      throw e.with_context(node.describe());
    }
  }
  return node;
}

// Orders nodes so that each follows the producers of its inputs (Kahn's algorithm, stable).
// Throws for an input that no graph input, initializer or node defines.
void sort_topologically(Graph& graph) {
  std::set<std::string> defined;
  for (const auto& v : graph.inputs) defined.insert(v.name);
  for (const auto& [name, t] : graph.initializers) defined.insert(name);
  std::set<std::string> produced;
  for (const Node& n : graph.nodes)
    for (const auto& o : n.outputs) produced.insert(o);

  std::vector<Node> ordered;
  std::vector<bool> placed(graph.nodes.size(), false);
  bool progress = true;
  while (ordered.size() < graph.nodes.size() && progress) {
    progress = false;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      if (placed[i]) continue;
      const Node& n = graph.nodes[i];
      bool ready = true;
      for (const auto& in : n.inputs) {
        if (in.empty() || defined.count(in)) continue;
        if (!produced.count(in))
          throw Error(n.describe() + " (node " + std::to_string(i) + "): input '" + in +
                      "' is not a graph input, an initializer or a node output (missing initializer?)");
        ready = false;
        break;
      }
      if (!ready) continue;
      for (const auto& o : n.outputs) defined.insert(o);
      ordered.push_back(n);
      placed[i] = true;
      progress = true;
    }
  }
  check(ordered.size() == graph.nodes.size(), "the graph has a cycle");
  graph.nodes = std::move(ordered);
  for (const auto& out : graph.outputs)
    check(defined.count(out.name) != 0, "graph output '" + out.name + "' is produced by no node");
}

bool libonnx_knows(const onnx::ModelProto& model) {
  if (model.ir_version() > onnx::IR_VERSION) return false;
  for (const auto& o : model.opset_import())
    if ((o.domain().empty() || o.domain() == "ai.onnx") && o.version() > kLibOnnxOpset) return false;
  return true;
}

void check_opset(const onnx::ModelProto& model) {
  bool has_default = false;
  for (const auto& o : model.opset_import()) {
    if (!o.domain().empty() && o.domain() != "ai.onnx") continue;
    has_default = true;
    if (o.version() > kMaxOpset)
      throw Error("opset " + std::to_string(o.version()) + " is newer than the newest q8 supports (" +
                  std::to_string(kMaxOpset) + ")");
    if (o.version() < kMinOpset)
      throw Error("opset " + std::to_string(o.version()) + " is older than the oldest q8 supports (" +
                  std::to_string(kMinOpset) + ")");
  }
  check(has_default || model.opset_import_size() > 0, "the model imports no opset");
}

// onnx::checker, its message on one line. An unsorted node order is accepted: q8 sorts nodes.
// A model newer than libonnx is left to q8's own checks (what the import and each op's factory
// verify): libonnx would judge its nodes by older schemas.
// libonnx 1.12's checker wants a shape on every graph input and output, which ONNX (and ONNX
// Runtime) leave optional: an unknown rank. The copy it checks gets an empty shape there.
bool lacks_shapes(const onnx::GraphProto& g) {
  for (const auto* list : {&g.input(), &g.output()})
    for (const auto& v : *list)
      if (v.type().has_tensor_type() && !v.type().tensor_type().has_shape()) return true;
  for (const auto& n : g.node())
    for (const auto& a : n.attribute())
      if (a.has_g() && lacks_shapes(a.g())) return true;
  return false;
}

void give_shapes(onnx::GraphProto& g) {
  for (auto* list : {g.mutable_input(), g.mutable_output()})
    for (auto& v : *list)
      if (v.type().has_tensor_type()) v.mutable_type()->mutable_tensor_type()->mutable_shape();
  for (auto& n : *g.mutable_node())
    for (auto& a : *n.mutable_attribute())
      if (a.has_g()) give_shapes(*a.mutable_g());
}

void run_checker(const onnx::ModelProto& given, const std::string& model_path) {
  if (!libonnx_knows(given)) return;
  onnx::ModelProto shaped;
  const bool reshape = lacks_shapes(given.graph());
  if (reshape) {
    shaped.CopyFrom(given);
    give_shapes(*shaped.mutable_graph());
  }
  const onnx::ModelProto& model = reshape ? shaped : given;
  try {
    // With external data the checker must see the file's directory, which only its
    // path-taking form knows.
    bool external = false;
    for (const auto& init : model.graph().initializer()) external = external || init.data_location() == onnx::TensorProto::EXTERNAL;
    if (external && !model_path.empty()) onnx::checker::check_model(model_path);
    else onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    std::string msg;
    for (char c : std::string(e.what())) {
      if (c == '\n' || c == '\r' || c == '\t') c = ' ';
      if (!(c == ' ' && !msg.empty() && msg.back() == ' ')) msg += c;
    }
    while (!msg.empty() && msg.back() == ' ') msg.pop_back();
    if (msg.find("topologically sorted") != std::string::npos) return;
    throw Error("ONNX checker rejected the model: " + msg);
  }
}

}  // namespace

namespace {

// ONNX's node names are optional. A node without one is named after its first output (each value
// has one producer), with a suffix where another node already has that name, so that `--exclude`,
// the accuracy budget, the reports and the plan's constants can name every node.
void name_unnamed_nodes(Graph& graph) {
  std::set<std::string> taken;
  for (const Node& n : graph.nodes)
    if (!n.name.empty()) taken.insert(n.name);
  for (Node& n : graph.nodes) {
    if (!n.name.empty()) continue;
    const auto output = std::find_if(n.outputs.begin(), n.outputs.end(), [](const std::string& o) { return !o.empty(); });
    const std::string base = output != n.outputs.end() ? *output : n.op_type;
    std::string name = base;
    for (int k = 1; taken.count(name); ++k) name = base + "_" + std::to_string(k);
    taken.insert(name);
    n.name = name;
  }
}

Graph graph_from_proto(const onnx::GraphProto& g, const ReadContext& ctx, bool subgraph) {
  Graph graph;
  graph.name = g.name();
  graph.ir_version = ctx.ir_version;
  graph.opsets = ctx.opsets;
  for (const auto& init : g.initializer()) graph.initializers[init.name()] = tensor_from_proto(init, ctx.base_dir);
  for (const auto& in : g.input())
    if (!graph.initializers.count(in.name())) graph.inputs.push_back(value_info_from_proto(in));
  for (const auto& out : g.output()) graph.outputs.push_back(value_info_from_proto(out));
  for (const auto& vi : g.value_info()) graph.value_info.push_back(value_info_from_proto(vi));
  for (const auto& n : g.node()) graph.nodes.push_back(node_from_proto(n, ctx));
  name_unnamed_nodes(graph);
  // A negative size on a graph input or output is an error, not an unknown dim.
  for (const auto* list : {&g.input(), &g.output()})
    for (const auto& v : *list) {
      if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) continue;
      const auto& dims = v.type().tensor_type().shape().dim();
      for (int d = 0; d < dims.size(); ++d)
        check(!dims[d].has_dim_value() || dims[d].dim_value() >= 0,
              "'" + v.name() + "' declares dimension " + std::to_string(dims[d].dim_value()) + " at axis " + std::to_string(d) +
                  "; a dimension is a size >= 0 or a symbol");
    }
  if (subgraph) {
    // Values the subgraph reads but does not define come from the enclosing graphs: inputs of
    // no declared type, after its own.
    std::set<std::string> defined;
    for (const auto& v : graph.inputs) defined.insert(v.name);
    for (const auto& [name, t] : graph.initializers) defined.insert(name);
    for (const Node& n : graph.nodes) defined.insert(n.outputs.begin(), n.outputs.end());
    std::vector<std::string> outer;
    auto read = [&](const std::string& v) {
      if (!v.empty() && !defined.count(v) && std::find(outer.begin(), outer.end(), v) == outer.end()) outer.push_back(v);
    };
    for (const Node& n : graph.nodes)
      for (const auto& in : n.inputs) read(in);
    for (const auto& out : graph.outputs) read(out.name);
    for (const std::string& v : outer) graph.inputs.push_back(ValueInfo{v, DType::Undefined, std::nullopt});
    graph.outer_inputs = outer.size();
  } else {
    for (const auto& in : graph.inputs)
      check(in.dtype != DType::Undefined, "input '" + in.name + "' has an unsupported or missing type");
    check(!graph.nodes.empty(), "the graph has no nodes: there is nothing to run");
    check(!graph.outputs.empty(), "the graph has no outputs");
  }
  sort_topologically(graph);
  return graph;
}

}  // namespace

Graph parse_model(const std::string& bytes, const std::string& base_dir, const std::string& what,
                  const std::string& model_path) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes) || !model.has_graph() || model.ir_version() <= 0)
    throw Error(what + ": not an ONNX model (protobuf parsing failed; the file is truncated or of another format)");
  try {
    check_opset(model);
    ReadContext ctx;
    ctx.base_dir = base_dir;
    ctx.ir_version = model.ir_version();
    for (const auto& o : model.opset_import()) ctx.opsets.push_back({o.domain(), o.version()});
    Graph graph = graph_from_proto(model.graph(), ctx, false);  // sorted before the checker: q8's message names node and value
    graph.import_note = float16_to_float32(graph);
    graph.producer_name = model.producer_name();
    graph.producer_version = model.producer_version();
    for (const auto& p : model.metadata_props()) graph.metadata[p.key()] = p.value();
    run_checker(model, model_path);
    return graph;
  } catch (const Error& e) {
    throw e.with_context(what);
  }
}

Graph load_model(const std::string& path) { return load_model_bytes(read_file(path), path); }

Graph load_model_bytes(const std::string& bytes, const std::string& path) {
  Graph graph = parse_model(bytes, std::filesystem::path(path).parent_path().string(), path, path);
  if (!graph.import_note.empty()) log::info("import:     %s\n", graph.import_note.c_str());
  return graph;
}

}  // namespace q8
