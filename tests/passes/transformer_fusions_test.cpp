// The transformer fusions of optimize_for_inference (engine/passes/transformer_fusions.h): each
// form exporters write is fused into one node, a chain that something else also reads is left as
// it is, and the fused graph computes what the model does: LayerNormalization and Gelu within a
// few ulp of the decomposed float32 steps, MatMulBias with the bits of MatMul → Add → activation;
// each sample the same alone as in its batch.
#include "engine/passes/transformer_fusions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "engine/exec/executor.h"
#include "engine/passes/optimize_for_inference.h"
#include "tests/ops/op_harness.h"

namespace q8 {
namespace {

constexpr int64_t kRows = 5;

Node make(const std::string& op, std::vector<std::string> in, std::string out) {
  Node n;
  n.op_type = op, n.name = out, n.inputs = std::move(in), n.outputs = {std::move(out)};
  return n;
}

// x [N, kRows, width] → the nodes → y, with the given initializers.
Graph graph(int64_t width, int64_t opset, std::vector<Node> nodes, std::map<std::string, Tensor> initializers) {
  Graph g;
  g.opsets = {{"", opset}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{{-1, "N"}, {kRows, ""}, {width, ""}}}};
  g.outputs = {{"y", DType::Float32, std::nullopt}};
  g.nodes = std::move(nodes);
  g.initializers = std::move(initializers);
  return g;
}

std::vector<std::string> op_types(const Graph& g) {
  std::vector<std::string> ops;
  for (const Node& n : g.nodes) ops.push_back(n.op_type);
  return ops;
}

// The optimized graph's y against the model's: within rel (0: the same bits); each of the batch's
// samples alone gives its rows of the batch's y, bit for bit.
void expect_same_results(const Graph& model, const Graph& optimized, int64_t width, float rel) {
  Executor plain(model), fused(optimized);
  const int64_t batch = 3, sample = kRows * width;
  const Tensor x = random_tensor({batch, kRows, width}, 17, -3.0f, 3.0f);
  const Tensor want = plain.run({{"x", x}}).at("y"), got = fused.run({{"x", x}}).at("y");
  ASSERT_EQ(got.dims(), want.dims());
  int64_t off = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const float w = want.data<float>()[i], g = got.data<float>()[i];
    if (rel == 0.0f) off += std::memcmp(&w, &g, sizeof(float)) != 0;
    else off += !(std::fabs(g - w) <= rel * (1.0f + std::fabs(w)));
  }
  EXPECT_EQ(off, 0) << "of " << want.numel();
  for (int64_t s = 0; s < batch; ++s) {
    Tensor one = Tensor::uninitialized(DType::Float32, {1, kRows, width});
    std::memcpy(one.data<float>(), x.data<float>() + s * sample, size_t(sample) * sizeof(float));
    const Tensor alone = fused.run({{"x", one}}).at("y");
    ASSERT_EQ(std::memcmp(alone.data<float>(), got.data<float>() + s * alone.numel(), size_t(alone.numel()) * sizeof(float)), 0)
        << "sample " << s;
  }
}

// ---------------------------------------------------------------------------------------------
// LayerNormalization

struct LayerNormForm {
  const char* name;
  int64_t opset;       // 18: ReduceMean's axes an input
  bool square_by_mul;  // Mul(d, d) for Pow(d, 2)
  bool beta;
  bool eps_first;      // Add(epsilon, var)
};

Graph decomposed_layer_norm(const LayerNormForm& f, int64_t width) {
  std::map<std::string, Tensor> init{{"gamma", random_tensor({width}, 3, 0.5f, 1.5f)},
                                     {"beta", random_tensor({width}, 4, -0.5f, 0.5f)},
                                     {"eps", Tensor::scalar<float>(1e-5f)},
                                     {"two", Tensor::scalar<float>(2.0f)},
                                     {"axes", Tensor::from_vector<int64_t>({1}, {-1})}};
  auto mean = [&](std::string in, std::string out) {
    Node n = make("ReduceMean", {std::move(in)}, std::move(out));
    if (f.opset >= 18) n.inputs.push_back("axes");
    else n.attributes["axes"] = Attribute::of_ints({-1});
    return n;
  };
  std::vector<Node> nodes{mean("x", "mu"), make("Sub", {"x", "mu"}, "d"),
                          f.square_by_mul ? make("Mul", {"d", "d"}, "d2") : make("Pow", {"d", "two"}, "d2"),
                          mean("d2", "var"),
                          make("Add", f.eps_first ? std::vector<std::string>{"eps", "var"} : std::vector<std::string>{"var", "eps"}, "ve"),
                          make("Sqrt", {"ve"}, "sd"), make("Div", {"d", "sd"}, "n"),
                          make("Mul", {"gamma", "n"}, f.beta ? "g" : "y")};
  if (f.beta) nodes.push_back(make("Add", {"g", "beta"}, "y"));
  return graph(width, f.opset, std::move(nodes), std::move(init));
}

void PrintTo(const LayerNormForm& f, std::ostream* os) { *os << f.name; }

class LayerNormForms : public testing::TestWithParam<LayerNormForm> {};

TEST_P(LayerNormForms, FuseIntoLayerNormalization) {
  for (const int64_t width : {24, 70, 768}) {  // below, across and many times the sums' 64 lanes
    const Graph model = decomposed_layer_norm(GetParam(), width);
    Graph g = model;
    EXPECT_EQ(fuse_layer_normalization(g), 1);
    ASSERT_EQ(op_types(g), std::vector<std::string>{"LayerNormalization"});
    EXPECT_EQ(g.nodes[0].inputs.size(), GetParam().beta ? 3u : 2u);
    EXPECT_EQ(g.nodes[0].attr_float("epsilon", 0.0f), 1e-5f);
    expect_same_results(model, g, width, 2e-6f);
  }
}

INSTANTIATE_TEST_SUITE_P(Exports, LayerNormForms,
                         testing::Values(LayerNormForm{"Pow", 13, false, true, false}, LayerNormForm{"MulSquare", 13, true, true, true},
                                         LayerNormForm{"NoBeta", 13, false, false, false}, LayerNormForm{"AxesInput", 18, false, true, false}),
                         [](const testing::TestParamInfo<LayerNormForm>& info) { return info.param.name; });

// Not a LayerNorm over the last axis, or a value of the chain needed elsewhere: nothing fused.
TEST(LayerNormFusion, LeavesWhatItCannotReplace) {
  const LayerNormForm f{"Pow", 13, false, true, false};
  std::vector<std::pair<const char*, std::function<void(Graph&)>>> cases{
      {"mean over axis 1", [](Graph& g) { g.nodes[0].attributes["axes"] = Attribute::of_ints({1}); }},
      {"no keepdims", [](Graph& g) { g.nodes[3].attributes["keepdims"] = Attribute::of_int(0); }},
      {"deviation also an output", [](Graph& g) { g.outputs.push_back({"d", DType::Float32, std::nullopt}); }},
      {"variance read again", [](Graph& g) { g.nodes.push_back(make("Relu", {"var"}, "r")); g.outputs.push_back({"r", DType::Float32, std::nullopt}); }},
      {"x minus the wrong mean", [](Graph& g) { g.nodes[1].inputs = {"mu", "x"}; }},
      {"cube, not square", [](Graph& g) { g.initializers["two"] = Tensor::scalar<float>(3.0f); }},
      {"gamma computed", [](Graph& g) { g.nodes.insert(g.nodes.begin(), make("Relu", {"gamma_in"}, "gamma")); g.initializers["gamma_in"] = g.initializers.at("gamma"); g.initializers.erase("gamma"); }},
  };
  for (auto& [what, change] : cases) {
    Graph g = decomposed_layer_norm(f, 24);
    change(g);
    EXPECT_EQ(fuse_layer_normalization(g), 0) << what;
  }
}

// ---------------------------------------------------------------------------------------------
// Gelu

// x · ½ · (1 + erf(x / √2)) as exporters write it: form 0 Mul(x, s) → Mul(·, ½) (PyTorch),
// 1 Mul(s, ½) → Mul(x, ·), 2 Mul(Mul(x, ½), s); x / √2 as Div or as Mul(1/√2, x).
Graph decomposed_gelu(int form, bool by_mul, int64_t width) {
  std::map<std::string, Tensor> init{{"sqrt2", Tensor::scalar<float>(1.4142135f)}, {"rsqrt2", Tensor::scalar<float>(0.70710677f)},
                                     {"one", Tensor::scalar<float>(1.0f)}, {"half", Tensor::scalar<float>(0.5f)}};
  std::vector<Node> nodes{by_mul ? make("Mul", {"rsqrt2", "x"}, "u") : make("Div", {"x", "sqrt2"}, "u"), make("Erf", {"u"}, "e"),
                          make("Add", {"e", "one"}, "s")};
  if (form == 0) nodes.insert(nodes.end(), {make("Mul", {"x", "s"}, "xs"), make("Mul", {"xs", "half"}, "y")});
  if (form == 1) nodes.insert(nodes.end(), {make("Mul", {"s", "half"}, "hs"), make("Mul", {"hs", "x"}, "y")});
  if (form == 2) nodes.insert(nodes.end(), {make("Mul", {"x", "half"}, "hx"), make("Mul", {"hx", "s"}, "y")});
  return graph(width, 13, std::move(nodes), std::move(init));
}

TEST(GeluFusion, FusesEveryFormExportersWrite) {
  for (int form = 0; form < 3; ++form)
    for (const bool by_mul : {false, true}) {
      SCOPED_TRACE("form " + std::to_string(form) + (by_mul ? ", Mul(1/√2)" : ", Div(√2)"));
      const Graph model = decomposed_gelu(form, by_mul, 40);
      Graph g = model;
      EXPECT_EQ(fuse_gelu(g), 1);
      ASSERT_EQ(op_types(g), std::vector<std::string>{"Gelu"});
      EXPECT_EQ(g.nodes[0].inputs, std::vector<std::string>{"x"});
      expect_same_results(model, g, 40, 1e-6f);
    }
}

TEST(GeluFusion, LeavesWhatItCannotReplace) {
  std::vector<std::pair<const char*, std::function<void(Graph&)>>> cases{
      {"x / 1.5", [](Graph& g) { g.initializers["sqrt2"] = Tensor::scalar<float>(1.5f); }},
      {"1 + erf read again", [](Graph& g) { g.outputs.push_back({"s", DType::Float32, std::nullopt}); }},
      {"erf + 2", [](Graph& g) { g.initializers["one"] = Tensor::scalar<float>(2.0f); }},
      {"times a third", [](Graph& g) { g.initializers["half"] = Tensor::scalar<float>(0.3333f); }},
      {"another value times the sum", [](Graph& g) { g.nodes[3].inputs = {"u", "s"}; }},
  };
  for (auto& [what, change] : cases) {
    Graph g = decomposed_gelu(0, false, 8);
    change(g);
    EXPECT_EQ(fuse_gelu(g), 0) << what;
  }
}

// ---------------------------------------------------------------------------------------------
// MatMulBias

// y = activation(MatMul(x, w) + b), w [width, 37].
Graph matmul_bias(const std::string& activation, int64_t width, bool bias_first = false) {
  std::map<std::string, Tensor> init{{"w", random_tensor({width, 37}, 5, -0.3f, 0.3f)}, {"b", random_tensor({37}, 6)}};
  const std::string sum = activation.empty() ? "y" : "z";
  std::vector<Node> nodes{make("MatMul", {"x", "w"}, "mm"), make("Add", bias_first ? std::vector<std::string>{"b", "mm"} : std::vector<std::string>{"mm", "b"}, sum)};
  if (activation == "Relu" || activation == "Gelu") nodes.push_back(make(activation, {"z"}, "y"));
  return graph(width, 20, std::move(nodes), std::move(init));
}

TEST(MatMulBiasFusion, GivesTheBitsOfMatMulAddAndActivation) {
  for (const std::string activation : {"", "Relu"})
    for (const int64_t width : {7, 300}) {
      SCOPED_TRACE("activation '" + activation + "', K " + std::to_string(width));
      const Graph model = matmul_bias(activation, width, width == 7);
      Graph g = model;
      EXPECT_EQ(fuse_matmul_bias(g), 1);
      ASSERT_EQ(op_types(g), std::vector<std::string>{"MatMulBias"});
      EXPECT_EQ(g.nodes[0].domain, "q8.fused");
      EXPECT_EQ(g.nodes[0].attr_string("activation", ""), activation);
      expect_same_results(model, g, width, 0.0f);
    }
}

TEST(MatMulBiasFusion, LeavesWhatItCannotReplace) {
  std::vector<std::pair<const char*, std::function<void(Graph&)>>> cases{
      {"bias [1, N]", [](Graph& g) { g.initializers["b"] = random_tensor({1, 37}, 6); }},
      {"bias [1]", [](Graph& g) { g.initializers["b"] = random_tensor({1}, 6); }},
      {"weight computed", [](Graph& g) { g.nodes.insert(g.nodes.begin(), make("Relu", {"w0"}, "w")); g.initializers["w0"] = g.initializers.at("w"); g.initializers.erase("w"); }},
      {"product also an output", [](Graph& g) { g.outputs.push_back({"mm", DType::Float32, std::nullopt}); }},
  };
  for (auto& [what, change] : cases) {
    Graph g = matmul_bias("", 7);
    change(g);
    EXPECT_EQ(fuse_matmul_bias(g), 0) << what;
  }
  // An activation whose input something else reads, and Gelu, stay nodes of their own.
  Graph g = matmul_bias("Relu", 7);
  g.outputs.push_back({"z", DType::Float32, std::nullopt});
  EXPECT_EQ(fuse_matmul_bias(g), 1);
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"MatMulBias", "Relu"}));
  g = matmul_bias("Gelu", 7);
  EXPECT_EQ(fuse_matmul_bias(g), 1);
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"MatMulBias", "Gelu"}));
}

// The whole pass on a decomposed GELU after a biased MatMul: MatMulBias then Gelu; the summary
// counts each fusion.
TEST(TransformerFusions, GeluAfterABiasedMatMul) {
  const int64_t width = 16;
  Graph model = decomposed_gelu(0, false, width);
  for (Node& n : model.nodes)
    for (std::string& in : n.inputs)
      if (in == "x") in = "z";
  model.initializers["w"] = random_tensor({width, width}, 8, -0.3f, 0.3f);
  model.initializers["b"] = random_tensor({width}, 9);
  model.nodes.insert(model.nodes.begin(), {make("MatMul", {"x", "w"}, "mm"), make("Add", {"mm", "b"}, "z")});
  Graph g = model;
  const InferenceOptimization r = optimize_for_inference(g);
  EXPECT_EQ(r.fused_gelus, 1);
  EXPECT_EQ(r.fused_matmuls, 1);
  ASSERT_EQ(op_types(g), (std::vector<std::string>{"MatMulBias", "Gelu"}));
  EXPECT_NE(r.summary().find("1 Gelu fused, 1 MatMul fused with bias (MatMulBias)"), std::string::npos) << r.summary();
  expect_same_results(model, g, width, 1e-6f);
}

}  // namespace
}  // namespace q8
