// optimize_for_inference: BatchNormalization folded, then Conv [→ Add(·, Z)] [→ Relu | Clip]
// fused into com.microsoft FusedConv. The optimized graph computes what the original does (within
// the rounding that BN folding moves), whichever Add operand the conv is, with Z produced after
// the conv, with a Z that broadcasts, and per sample independently of the batch, at level
// "extended" and at "all" (which adds the layout pass, tests/passes/channels_last_layout_test.cpp).
#include "engine/passes/optimize_for_inference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/exec/executor.h"
#include "tests/ops/op_harness.h"

namespace q8 {
namespace {

Node make(const std::string& op, const std::string& name, std::vector<std::string> in, std::vector<std::string> out) {
  Node n;
  n.op_type = op, n.name = name, n.inputs = std::move(in), n.outputs = std::move(out);
  if (op == "Conv") n.attributes["pads"] = Attribute::of_ints({1, 1, 1, 1});
  return n;
}

// x [N, 4, 6, 6]:
//   r  = Relu(BN(Conv(x, w1, b1)))                     → FusedConv(Relu), BN folded
//   o  = Clip(Add(r, Conv(r, w2)), -1, 2)               → FusedConv(Z = r, Clip), the conv as Add's input 1
//   s  = Add(Conv(o, w3), Conv(o, w4))                  → FusedConv(Z = the later conv's output)
//   y  = Add(Conv(s, w5), GlobalAveragePool(s))         → FusedConv whose Z broadcasts
Graph model() {
  Graph g;
  g.opsets = {{"", 13}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{{-1, "N"}, {4, ""}, {6, ""}, {6, ""}}}};
  g.outputs = {{"y", DType::Float32, std::nullopt}};
  for (int i = 1; i <= 5; ++i) g.initializers["w" + std::to_string(i)] = random_tensor({4, 4, 3, 3}, uint64_t(i), -0.4f, 0.4f);
  g.initializers["b1"] = random_tensor({4}, 11, -0.5f, 0.5f);
  const std::vector<std::string> bn_params = {"scale", "bias", "mean", "var"};
  for (size_t i = 0; i < bn_params.size(); ++i)
    g.initializers[bn_params[i]] = random_tensor({4}, 20 + i, i == 3 ? 0.5f : -0.5f, i == 3 ? 2.0f : 1.0f);
  g.initializers["lo"] = Tensor::scalar<float>(-1.0f);
  g.initializers["hi"] = Tensor::scalar<float>(2.0f);
  g.nodes = {make("Conv", "c1", {"x", "w1", "b1"}, {"c1"}),
             make("BatchNormalization", "bn", {"c1", "scale", "bias", "mean", "var"}, {"bn"}),
             make("Relu", "relu", {"bn"}, {"r"}),
             make("Conv", "c2", {"r", "w2"}, {"c2"}),
             make("Add", "add2", {"r", "c2"}, {"a2"}),
             make("Clip", "clip", {"a2", "lo", "hi"}, {"o"}),
             make("Conv", "c3", {"o", "w3"}, {"c3"}),
             make("Conv", "c4", {"o", "w4"}, {"c4"}),
             make("Add", "add3", {"c3", "c4"}, {"s"}),
             make("Conv", "c5", {"s", "w5"}, {"c5"}),
             make("GlobalAveragePool", "gap", {"s"}, {"m"}),
             make("Add", "add5", {"c5", "m"}, {"y"})};
  return g;
}

TEST(OptimizeForInference, FoldsAndFusesWhatOnnxRuntimeWould) {
  Graph g = model();
  const InferenceOptimization r = optimize_for_inference(g, GraphOptimizationLevel::Extended);
  EXPECT_EQ(r.fold.folded.size(), 1u);
  EXPECT_EQ(r.fused_convs, 4);
  std::vector<std::string> ops;
  for (const Node& n : g.nodes) ops.push_back(n.op_type + (n.attributes.count("activation") ? "+" + n.attr_string("activation", "") : "") +
                                              (n.inputs.size() > 3 ? "+Z=" + n.inputs[3] : ""));
  EXPECT_EQ(ops, (std::vector<std::string>{"FusedConv+Relu", "FusedConv+Clip+Z=r", "Conv", "FusedConv+Z=c4", "GlobalAveragePool",
                                           "FusedConv+Z=m"}));
  EXPECT_EQ(g.nodes[1].attr_floats("activation_params"), (std::vector<float>{-1.0f, 2.0f}));
  bool imported = false;
  for (const OpsetImport& o : g.opsets) imported = imported || o.domain == "com.microsoft";
  EXPECT_TRUE(imported);
}

class OptimizeAtLevel : public testing::TestWithParam<GraphOptimizationLevel> {};

TEST_P(OptimizeAtLevel, TheOptimizedGraphComputesWhatTheModelDoes) {
  Graph optimized = model();
  optimize_for_inference(optimized, GetParam());
  Executor plain(model()), fused(optimized);
  const Tensor x = random_tensor({3, 4, 6, 6}, 7, -1.0f, 1.0f);
  const Tensor want = plain.run({{"x", x}}).at("y"), got = fused.run({{"x", x}}).at("y");
  ASSERT_EQ(got.dims(), want.dims());
  for (int64_t i = 0; i < want.numel(); ++i)
    EXPECT_NEAR(got.data<float>()[i], want.data<float>()[i], 1e-4f * (1.0f + std::fabs(want.data<float>()[i]))) << i;
  // Each sample's result is the same alone as in the batch.
  for (int64_t s = 0; s < 3; ++s) {
    Tensor one = Tensor::uninitialized(DType::Float32, {1, 4, 6, 6});
    std::copy(x.data<float>() + s * 144, x.data<float>() + (s + 1) * 144, one.data<float>());
    const Tensor alone = fused.run({{"x", one}}).at("y");
    for (int64_t i = 0; i < alone.numel(); ++i)
      ASSERT_EQ(alone.data<float>()[i], got.data<float>()[s * alone.numel() + i]) << "sample " << s << " element " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Levels, OptimizeAtLevel, testing::Values(GraphOptimizationLevel::Extended, GraphOptimizationLevel::All),
                         [](const testing::TestParamInfo<GraphOptimizationLevel>& info) {
                           return info.param == GraphOptimizationLevel::All ? "all" : "extended";
                         });

// PyTorch 2's exporter routes shared parameters through Identity nodes: with them removed first,
// the same fusions and channels-last nodes as without them, and the same bits; an Identity that
// makes a graph output stays.
TEST(OptimizeForInference, RemovesIdentitiesAsOnnxRuntimeDoes) {
  Graph routed = model();
  routed.nodes.insert(routed.nodes.begin(), {make("Identity", "id_b1", {"b1"}, {"b1_shared"}), make("Identity", "id_w2", {"w2"}, {"w2_shared"})});
  routed.nodes[2].inputs[2] = "b1_shared";  // c1's bias
  routed.nodes[5].inputs[1] = "w2_shared";  // c2's weights
  routed.nodes.back().outputs[0] = "y0";
  routed.nodes.push_back(make("Identity", "id_y", {"y0"}, {"y"}));
  Graph plain = model();
  const InferenceOptimization a = optimize_for_inference(plain), b = optimize_for_inference(routed);
  EXPECT_EQ(b.identities, 2);
  EXPECT_EQ(b.fused_convs, a.fused_convs);
  // The output's Identity follows its input channels-last: one node more, the rest as without.
  EXPECT_EQ(b.layout.channels_last_nodes, a.layout.channels_last_nodes + 1);
  EXPECT_EQ(std::count_if(routed.nodes.begin(), routed.nodes.end(), [](const Node& n) { return n.op_type == "Identity"; }), 1);
  EXPECT_NE(b.summary().find("2 Identity removed"), std::string::npos) << b.summary();
  Executor ea(plain), eb(routed);
  const Tensor x = random_tensor({2, 4, 6, 6}, 9, -1.0f, 1.0f);
  const Tensor want = ea.run({{"x", x}}).at("y"), got = eb.run({{"x", x}}).at("y");
  ASSERT_EQ(got.nbytes(), want.nbytes());
  EXPECT_EQ(std::memcmp(got.raw(), want.raw(), want.nbytes()), 0);
}

// Exporters give Clip's bounds as Constant nodes (torchvision's MobileNetV2: 70 of them): made
// initializers, the Clip fuses as with initializer bounds and no Constant runs; one that is a
// graph output stays.
TEST(OptimizeForInference, MakesConstantNodesInitializersAsOnnxRuntimeDoes) {
  Graph g = model();
  for (const char* bound : {"lo", "hi"}) {
    Node c = make("Constant", std::string("const_") + bound, {}, {bound});
    c.attributes["value"] = Attribute::of_tensor(g.initializers.at(bound));
    g.initializers.erase(bound);
    g.nodes.insert(g.nodes.begin(), c);
  }
  Node kept = make("Constant", "const_out", {}, {"k"});
  kept.attributes["value"] = Attribute::of_tensor(Tensor::scalar<float>(3.0f));
  g.nodes.push_back(kept);
  g.outputs.push_back({"k", DType::Float32, std::nullopt});
  Graph plain = model();
  const InferenceOptimization a = optimize_for_inference(plain), b = optimize_for_inference(g);
  EXPECT_EQ(b.constants, 2);
  EXPECT_EQ(b.fused_convs, a.fused_convs);
  EXPECT_EQ(std::count_if(g.nodes.begin(), g.nodes.end(), [](const Node& n) { return n.op_type == "Constant"; }), 1);
  EXPECT_NE(b.summary().find("2 Constant to initializers"), std::string::npos) << b.summary();
  Executor ea(plain), eb(g);
  const Tensor x = random_tensor({2, 4, 6, 6}, 5, -1.0f, 1.0f);
  const auto got = eb.run({{"x", x}});
  const Tensor want = ea.run({{"x", x}}).at("y");
  ASSERT_EQ(got.at("y").nbytes(), want.nbytes());
  EXPECT_EQ(std::memcmp(got.at("y").raw(), want.raw(), want.nbytes()), 0);
  EXPECT_EQ(got.at("k").data<float>()[0], 3.0f);
}

TEST(OptimizeForInference, LeavesGraphsOfTheInt8EngineAlone) {
  Graph g = model();
  g.nodes[0].domain = kInt8Domain;
  const Graph before = g;
  const InferenceOptimization r = optimize_for_inference(g);
  EXPECT_EQ(r.fused_convs, 0);
  EXPECT_EQ(g.nodes.size(), before.nodes.size());
}

}  // namespace
}  // namespace q8
