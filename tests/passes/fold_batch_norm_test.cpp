// fold_batch_norm: the folded graph computes what the original did, for Conv, grouped
// ConvTranspose (scales along axis 1, group by group), Gemm (transB 0 and 1, with β), MatMul, BN
// parameters from initializers, Constant nodes or behind Identity nodes, a missing bias; unfoldable BNs are kept and
// reported.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "engine/exec/executor.h"
#include "engine/io/npy.h"
#include "engine/onnx/import.h"
#include "engine/passes/fold_batch_norm.h"
#include "tests/ops/op_harness.h"

namespace q8 {
namespace {

Tensor uniform(const Dims& dims, uint64_t seed, float lo, float hi) { return random_tensor(dims, seed, lo, hi); }

// x → producer(W[, B]) → BatchNormalization(params as initializers or Constant nodes) → y.
Graph producer_bn(const std::string& op, const Dims& x_dims, const Tensor& w, bool with_bias, int64_t channels,
                  std::map<std::string, Attribute> attrs, bool constant_params) {
  Graph g;
  g.opsets = {{"", 13}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{}}};
  for (int64_t d : x_dims) g.inputs[0].shape->push_back(Dim{d, ""});
  g.outputs = {{"y", DType::Float32, std::nullopt}};
  g.initializers["w"] = w;
  Node p;
  p.op_type = op, p.name = "producer", p.inputs = {"x", "w"}, p.outputs = {"p"}, p.attributes = attrs;
  if (with_bias) {
    g.initializers["b"] = uniform({channels}, 9, -1, 1);
    p.inputs.push_back("b");
  }
  g.nodes.push_back(p);
  const std::vector<std::pair<std::string, Tensor>> params = {
      {"scale", uniform({channels}, 1, 0.5f, 1.5f)}, {"bias", uniform({channels}, 2, -1, 1)},
      {"mean", uniform({channels}, 3, -0.5f, 0.5f)}, {"var", uniform({channels}, 4, 0.5f, 2.0f)}};
  Node bn;
  bn.op_type = "BatchNormalization", bn.name = "bn", bn.inputs = {"p"}, bn.outputs = {"y"};
  bn.attributes["epsilon"] = Attribute::of_float(1e-3f);
  for (const auto& [name, t] : params) {
    bn.inputs.push_back(name);
    if (!constant_params) {
      g.initializers[name] = t;
      continue;
    }
    Node c;
    c.op_type = "Constant", c.name = "const_" + name, c.outputs = {name};
    c.attributes["value"] = Attribute::of_tensor(t);
    g.nodes.insert(g.nodes.begin(), c);
  }
  g.nodes.push_back(bn);
  return g;
}

void expect_same_outputs(const Graph& original, const Dims& x_dims) {
  Graph folded = original;
  const FoldReport report = fold_batch_norm(folded);
  ASSERT_EQ(report.folded, std::vector<std::string>{"bn"});
  ASSERT_TRUE(report.kept.empty());
  for (const Node& n : folded.nodes) EXPECT_NE(n.op_type, "BatchNormalization");
  const Tensor x = uniform(x_dims, 7, -1, 1);
  const Tensor want = Executor(original).run({{"x", x}}).at("y");
  const Tensor got = Executor(folded).run({{"x", x}}).at("y");
  expect_close(got, want, 1e-5);
}

TEST(FoldBatchNorm, Conv) {
  expect_same_outputs(producer_bn("Conv", {2, 3, 7, 7}, uniform({6, 3, 3, 3}, 5, -1, 1), true, 6, {}, false), {2, 3, 7, 7});
  // Constant-node parameters and no conv bias (one is created).
  expect_same_outputs(producer_bn("Conv", {1, 4, 5, 5}, uniform({8, 2, 3, 3}, 6, -1, 1), false, 8,
                                  {{"group", Attribute::of_int(2)}}, true),
                      {1, 4, 5, 5});
}

// Exporters share equal parameters through Identity (torch: a fresh layer's running mean and
// variance equal another's): a parameter behind Identity nodes is still a constant.
TEST(FoldBatchNorm, ParametersSharedThroughIdentity) {
  Graph g = producer_bn("Conv", {2, 3, 7, 7}, uniform({6, 3, 3, 3}, 5, -1, 1), true, 6, {}, false);
  std::vector<Node> identities;
  for (const std::string param : {"mean", "var"}) {
    Node id1, id2;
    id1.op_type = "Identity", id1.name = "id_" + param, id1.inputs = {param}, id1.outputs = {param + "_shared"};
    id2.op_type = "Identity", id2.name = "id2_" + param, id2.inputs = {param + "_shared"}, id2.outputs = {param + "_twice"};
    std::replace(g.nodes.back().inputs.begin(), g.nodes.back().inputs.end(), param, param + "_twice");
    identities.insert(identities.end(), {id1, id2});
  }
  g.nodes.insert(g.nodes.begin(), identities.begin(), identities.end());
  expect_same_outputs(g, {2, 3, 7, 7});
}

TEST(FoldBatchNorm, ConvTransposeGroupsAndChannelsInNotOut) {
  // W [C_in = 8, C_out/g = 3, 3, 3], g = 2: 6 output channels, scales along axis 1 per group.
  expect_same_outputs(producer_bn("ConvTranspose", {2, 8, 4, 5}, uniform({8, 3, 3, 3}, 5, -1, 1), true, 6,
                                  {{"group", Attribute::of_int(2)}, {"strides", Attribute::of_ints({2, 2})}}, false),
                      {2, 8, 4, 5});
  // 64 → 10, no bias.
  expect_same_outputs(producer_bn("ConvTranspose", {1, 64, 3, 3}, uniform({64, 10, 2, 2}, 8, -1, 1), false, 10, {}, true),
                      {1, 64, 3, 3});
}

TEST(FoldBatchNorm, GemmBothLayoutsAndMatMul) {
  expect_same_outputs(producer_bn("Gemm", {4, 16}, uniform({16, 5}, 5, -1, 1), true, 5, {{"beta", Attribute::of_float(0.5f)}}, false),
                      {4, 16});
  expect_same_outputs(producer_bn("Gemm", {4, 16}, uniform({5, 16}, 5, -1, 1), false, 5, {{"transB", Attribute::of_int(1)}}, false),
                      {4, 16});
  expect_same_outputs(producer_bn("MatMul", {4, 16}, uniform({16, 5}, 5, -1, 1), false, 5, {}, true), {4, 16});
}

TEST(FoldBatchNorm, KeepsAndReportsWhatCannotFold) {
  Graph g = producer_bn("Conv", {1, 3, 5, 5}, uniform({4, 3, 3, 3}, 5, -1, 1), true, 4, {}, false);
  g.outputs.push_back({"p", DType::Float32, std::nullopt});  // the conv output is also a graph output
  const FoldReport report = fold_batch_norm(g);
  ASSERT_EQ(report.kept.size(), 1u);
  EXPECT_EQ(report.kept[0].first, "bn");
  EXPECT_NE(report.kept[0].second.find("other consumers"), std::string::npos) << report.kept[0].second;
  // A BN after a Relu has nothing to fold into.
  Graph r = producer_bn("Conv", {1, 3, 5, 5}, uniform({4, 3, 3, 3}, 5, -1, 1), true, 4, {}, false);
  Node relu;
  relu.op_type = "Relu", relu.name = "relu", relu.inputs = {"p"}, relu.outputs = {"pr"};
  r.nodes.insert(r.nodes.end() - 1, relu);
  r.nodes.back().inputs[0] = "pr";
  EXPECT_NE(fold_batch_norm(r).kept.at(0).second.find("comes from Relu"), std::string::npos);
}

TEST(FoldBatchNorm, ShippedModel) {
  const Graph original = load_model(Q8_SOURCE_DIR "/datasets/models/fashion_cnn.onnx");
  Graph folded = original;
  const FoldReport report = fold_batch_norm(folded);
  EXPECT_EQ(report.folded.size(), 4u);  // conv1, conv2, conv3 and the ConvTranspose
  EXPECT_TRUE(report.kept.empty());
  const Tensor x = read_npy(Q8_SOURCE_DIR "/datasets/samples/fashion-mnist/images.npy");
  expect_close(Executor(folded).run({{"input", x}}).at("logits"), Executor(original).run({{"input", x}}).at("logits"), 1e-4);
}

}  // namespace
}  // namespace q8
