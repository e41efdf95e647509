// ONNX import and export: external data, Constant nodes, round trips that onnx::checker accepts
// and that compute the same outputs, and the errors for broken files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "engine/exec/executor.h"
#include "engine/io/atomic_write.h"
#include "engine/io/npy.h"
#include "engine/onnx/export.h"
#include "engine/onnx/import.h"
#include "engine/onnx/tensor_proto.h"

namespace q8 {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("q8_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

const std::string kFashion = Q8_SOURCE_DIR "/datasets/models/fashion_cnn.onnx";
const std::string kSamples = Q8_SOURCE_DIR "/datasets/samples/fashion-mnist/images.npy";

TEST(Import, ShippedModelMatchesPyTorch) {
  Executor exec(load_model(kFashion));
  const Tensor logits = exec.run({{"input", read_npy(kSamples)}}).at("logits");
  const Tensor want = read_npy(Q8_SOURCE_DIR "/datasets/samples/fashion-mnist/expected_logits.npy");
  ASSERT_EQ(logits.dims(), want.dims());
  for (int64_t i = 0; i < want.numel(); ++i) EXPECT_NEAR(logits.data<float>()[i], want.data<float>()[i], 1e-4);
}

TEST(Export, RoundTripIsEquivalentAndChecked) {
  const fs::path dir = temp_dir("roundtrip");
  const Graph g = load_model(kFashion);
  save_model(g, (dir / "copy.onnx").string());  // save_model runs onnx::checker
  const Graph back = load_model((dir / "copy.onnx").string());
  EXPECT_EQ(back.nodes.size(), g.nodes.size());
  EXPECT_EQ(back.opset(), g.opset());
  const Tensor x = read_npy(kSamples);
  const Tensor a = Executor(g).run({{"input", x}}).at("logits");
  const Tensor b = Executor(back).run({{"input", x}}).at("logits");
  for (int64_t i = 0; i < a.numel(); ++i) ASSERT_EQ(a.data<float>()[i], b.data<float>()[i]);
  fs::remove_all(dir);
}

TEST(Import, ExternalDataBesideTheModel) {
  const fs::path dir = temp_dir("external");
  onnx::ModelProto model = to_model_proto(load_model(kFashion));
  // Move every initializer's bytes into weights.bin.
  std::ofstream bin(dir / "weights.bin", std::ios::binary);
  int64_t offset = 0;
  for (auto& init : *model.mutable_graph()->mutable_initializer()) {
    const std::string bytes = init.raw_data();
    bin.write(bytes.data(), std::streamsize(bytes.size()));
    init.clear_raw_data();
    init.set_data_location(onnx::TensorProto::EXTERNAL);
    auto add = [&](const char* k, const std::string& v) {
      auto* e = init.add_external_data();
      e->set_key(k);
      e->set_value(v);
    };
    add("location", "weights.bin");
    add("offset", std::to_string(offset));
    add("length", std::to_string(bytes.size()));
    offset += int64_t(bytes.size());
  }
  bin.close();
  write_file_atomically((dir / "external.onnx").string(), model.SerializeAsString());
  const Tensor x = read_npy(kSamples);
  const Tensor a = Executor(load_model(kFashion)).run({{"input", x}}).at("logits");
  const Tensor b = Executor(load_model((dir / "external.onnx").string())).run({{"input", x}}).at("logits");
  for (int64_t i = 0; i < a.numel(); ++i) ASSERT_EQ(a.data<float>()[i], b.data<float>()[i]);
  fs::remove(dir / "weights.bin");
  EXPECT_THROW(load_model((dir / "external.onnx").string()), Error);
  fs::remove_all(dir);
}

void expect_load_error(const std::string& path, const std::string& text) {
  try {
    load_model(path);
    ADD_FAILURE() << "expected an error containing: " << text;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(Import, ErrorsNameTheFileAndTheProblem) {
  const fs::path dir = temp_dir("errors");
  expect_load_error((dir / "absent.onnx").string(), "absent.onnx: no such file");
  write_file_atomically((dir / "text.onnx").string(), "this is not a model\n");
  expect_load_error((dir / "text.onnx").string(), "text.onnx: not an ONNX model");
  const std::string bytes = read_file(kFashion);
  write_file_atomically((dir / "half.onnx").string(), bytes.substr(0, bytes.size() / 2));
  expect_load_error((dir / "half.onnx").string(), "half.onnx: not an ONNX model");

  onnx::ModelProto newer = to_model_proto(load_model(kFashion));
  newer.mutable_opset_import(0)->set_version(kMaxOpset + 2);
  write_file_atomically((dir / "newer.onnx").string(), newer.SerializeAsString());
  expect_load_error((dir / "newer.onnx").string(), "opset " + std::to_string(kMaxOpset + 2) + " is newer than the newest q8 supports (" + std::to_string(kMaxOpset) + ")");

  onnx::ModelProto missing = to_model_proto(load_model(kFashion));
  auto* inits = missing.mutable_graph()->mutable_initializer();
  std::string dropped = inits->Get(0).name();
  inits->DeleteSubrange(0, 1);
  write_file_atomically((dir / "missing.onnx").string(), missing.SerializeAsString());
  expect_load_error((dir / "missing.onnx").string(), "'" + dropped + "'");
  fs::remove_all(dir);
}

// ONNX's node names are optional: an unnamed node is named after its first output (a suffix
// where that name is another node's), so that --exclude and the reports can name it.
TEST(Import, UnnamedNodesAreNamedAfterTheirOutputs) {
  onnx::ModelProto model = to_model_proto(load_model(kFashion));
  auto* nodes = model.mutable_graph()->mutable_node();
  ASSERT_GE(nodes->size(), 3);
  const std::string first_output = nodes->Get(0).output(0), second_output = nodes->Get(1).output(0);
  nodes->Mutable(0)->clear_name();
  nodes->Mutable(1)->clear_name();
  nodes->Mutable(2)->set_name(second_output);  // the name the second would take
  const Graph g = load_model_bytes(model.SerializeAsString(), "unnamed.onnx");
  std::set<std::string> names;
  for (const Node& n : g.nodes) {
    EXPECT_FALSE(n.name.empty()) << n.describe();
    EXPECT_TRUE(names.insert(n.name).second) << "two nodes named '" << n.name << "'";
  }
  EXPECT_TRUE(names.count(first_output));
  EXPECT_TRUE(names.count(second_output + "_1"));
}

TEST(TensorProto, RoundTripsEveryDtype) {
  for (DType t : {DType::Float32, DType::Float16, DType::Int8, DType::Uint8, DType::Int32, DType::Int64, DType::Bool}) {
    Tensor x(t, {2, 3});
    for (size_t i = 0; i < x.nbytes(); ++i) x.raw()[i] = std::byte(t == DType::Bool ? (i % 2) : (i * 7 + 1));
    onnx::TensorProto proto;
    tensor_to_proto(x, proto);
    const Tensor y = tensor_from_proto(proto, "");
    ASSERT_EQ(y.dtype(), t);
    ASSERT_EQ(y.dims(), x.dims());
    EXPECT_EQ(std::memcmp(x.raw(), y.raw(), x.nbytes()), 0) << dtype_name(t);
  }
}

TEST(Npy, RoundTripsAndRejectsTruncation) {
  const fs::path dir = temp_dir("npy");
  Tensor x(DType::Int64, {3, 1, 2});
  for (int64_t i = 0; i < 6; ++i) x.data<int64_t>()[i] = i * 1000000007LL;
  write_npy((dir / "x.npy").string(), x);
  const Tensor y = read_npy((dir / "x.npy").string());
  EXPECT_EQ(y.dims(), x.dims());
  EXPECT_EQ(std::memcmp(x.raw(), y.raw(), x.nbytes()), 0);
  const std::string bytes = read_file((dir / "x.npy").string());
  write_file_atomically((dir / "cut.npy").string(), bytes.substr(0, bytes.size() - 3));
  try {
    read_npy((dir / "cut.npy").string());
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("truncated .npy data"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

TEST(Float16, ConvertsWithRoundHalfToEven) {
  EXPECT_EQ(float_to_half(1.0f).bits, 0x3C00);
  EXPECT_EQ(float_to_half(65504.0f).bits, 0x7BFF);
  EXPECT_EQ(float_to_half(1e6f).bits, 0x7C00);
  EXPECT_EQ(float_to_half(5.960464477539063e-08f).bits, 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_half(1.0f + 1.0f / 2048).bits, 0x3C00);       // tie to even (down)
  EXPECT_EQ(float_to_half(1.0f + 3.0f / 2048).bits, 0x3C02);       // tie to even (up)
  for (uint32_t b = 0; b < 0x7C00; ++b) ASSERT_EQ(float_to_half(half_to_float(Float16{uint16_t(b)})).bits, b);
}

}  // namespace
}  // namespace q8

namespace q8 {
namespace {

// If(c) { then: y = x + 1 (x read from the outer graph); else: y = -x }, x = Relu(input).
onnx::ModelProto if_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("if");
  auto typed = [](onnx::ValueInfoProto* v, const std::string& name, int type, bool scalar) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(type);
    if (!scalar) tt->mutable_shape()->add_dim()->set_dim_value(3);
    else tt->mutable_shape();
  };
  typed(g->add_input(), "input", onnx::TensorProto::FLOAT, false);
  typed(g->add_input(), "c", onnx::TensorProto::BOOL, true);
  typed(g->add_output(), "y", onnx::TensorProto::FLOAT, false);
  auto* relu = g->add_node();
  relu->set_op_type("Relu"), relu->add_input("input"), relu->add_output("x");
  auto branch = [&](onnx::AttributeProto* a, const std::string& name, const std::string& op) {
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* b = a->mutable_g();
    b->set_name(name);
    typed(b->add_output(), "out_" + name, onnx::TensorProto::FLOAT, false);
    auto* n = b->add_node();
    n->set_op_type(op), n->add_input("x");
    if (op == "Add") {
      n->add_input("one");
      Tensor one = Tensor::scalar<float>(1.0f);
      tensor_to_proto(one, *b->add_initializer());
      b->mutable_initializer(0)->set_name("one");
    }
    n->add_output("out_" + name);
  };
  auto* node = g->add_node();
  node->set_op_type("If"), node->set_name("if"), node->add_input("c"), node->add_output("y");
  branch(node->add_attribute(), "then_branch", "Add");
  branch(node->add_attribute(), "else_branch", "Neg");
  return m;
}

// A subgraph's outer reads become the node's captured inputs; a pass that renames one (here: a
// producer inserted in front) is carried into the subgraph on export, and the exported model
// computes the same, passes onnx::checker and re-imports with the same captures.
TEST(Export, SubgraphsReadTheirOuterValuesUnderTheirNewNames) {
  const fs::path dir = temp_dir("subgraphs");
  Graph g = parse_model(if_model().SerializeAsString(), "", "if");
  ASSERT_EQ(g.nodes.size(), 2u);
  const Node& n = g.nodes[1];
  EXPECT_EQ(n.captures, std::vector<std::string>({"x"}));
  EXPECT_EQ(n.inputs, std::vector<std::string>({"c", "x"}));
  const Tensor input = Tensor::from_vector<float>({3}, {-1.0f, 0.5f, 2.0f});
  auto run = [&](const Graph& graph, bool c) { return Executor(graph).run({{"input", input}, {"c", Tensor::scalar<bool>(c)}}).at("y"); };
  EXPECT_EQ(run(g, true).to_floats(), std::vector<float>({1.0f, 1.5f, 3.0f}));
  EXPECT_EQ(run(g, false).to_floats(), std::vector<float>({-0.0f, -0.5f, -2.0f}));
  // Renamed: x → Identity → x_renamed, which the If now reads.
  Node id;
  id.op_type = "Identity", id.name = "id", id.inputs = {"x"}, id.outputs = {"x_renamed"};
  g.nodes.insert(g.nodes.begin() + 1, id);
  g.nodes[2].inputs[1] = "x_renamed";
  save_model(g, (dir / "renamed.onnx").string());
  const Graph back = load_model((dir / "renamed.onnx").string());
  EXPECT_EQ(back.nodes.back().captures, std::vector<std::string>({"x_renamed"}));
  EXPECT_EQ(run(back, true).to_floats(), std::vector<float>({1.0f, 1.5f, 3.0f}));
  EXPECT_EQ(run(back, false).to_floats(), std::vector<float>({-0.0f, -0.5f, -2.0f}));
}

}  // namespace
}  // namespace q8

namespace q8 {
namespace {

// A model published in float16 with float16 inputs and outputs: y = Cast<float16>(x · w) where
// x: float16[3] (a graph input), w: a float16 initializer, and an If whose branch holds a float16
// constant. The import computes it in float32 (docs/ops.md, "Float16 models"): the boundary keeps
// float16, the constants are widened exactly, and the note says what changed.
TEST(Float16, ModelsAreComputedInFloat32WithTheirBoundaryKept) {
  onnx::ModelProto m = if_model();
  auto* g = m.mutable_graph();
  g->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT16);
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT16);
  for (auto& a : *g->mutable_node(1)->mutable_attribute()) {
    a.mutable_g()->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT16);
    for (auto& init : *a.mutable_g()->mutable_initializer()) {
      const Tensor one = Tensor::from_vector<float>({}, {1.0f}).narrowed();
      tensor_to_proto(one, init);
      init.set_name("one");
    }
  }
  const Graph graph = parse_model(m.SerializeAsString(), "", "float16 if");
  EXPECT_NE(graph.import_note.find("float16 computed as float32"), std::string::npos) << graph.import_note;
  EXPECT_NE(graph.import_note.find("2 float16 inputs and outputs cast at the boundary"), std::string::npos) << graph.import_note;
  EXPECT_EQ(graph.inputs[0].dtype, DType::Float16);
  EXPECT_EQ(graph.outputs[0].dtype, DType::Float16);
  const Tensor input = Tensor::from_vector<float>({3}, {-1.0f, 0.5f, 2.0f}).narrowed();
  auto run = [&](bool c) { return Executor(graph).run({{"input", input}, {"c", Tensor::scalar<bool>(c)}}).at("y"); };
  const Tensor yes = run(true), no = run(false);
  EXPECT_EQ(yes.dtype(), DType::Float16);
  EXPECT_EQ(yes.widened().to_floats(), std::vector<float>({1.0f, 1.5f, 3.0f}));
  EXPECT_EQ(no.widened().to_floats(), std::vector<float>({-0.0f, -0.5f, -2.0f}));
  // A float32 model is left as it is.
  EXPECT_EQ(parse_model(if_model().SerializeAsString(), "", "if").import_note, "");
}

}  // namespace
}  // namespace q8
