// A residual Add after the conv's own Q → DQ (`--add-mode both`, docs/quantization.md "Residual
// Add"): the lowering fuses Conv → Q → DQ → Add(·, DQ(r)) → Relu → Q into one QConv, in either
// operand order, whose output is bit for bit that of the QConv and QAdd the same graph lowers to
// where the fusion is not allowed, and within one step of the QDQ graph run op by op; and what
// must not fuse.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/exec/executor.h"
#include "engine/plan/lower.h"
#include "engine/plan/reference/backend.h"
#include "tests/plan/node_builder.h"

namespace q8 {
namespace {

using test::node;

constexpr float kSumScale = 0.021f;

struct Form {
  bool residual_first = false;  // Add(DQ(r), DQ(y)) instead of Add(DQ(y), DQ(r))
  bool own_q_is_output = false;  // the convs' Qs are also graph outputs: no fusion may take them
  bool relu_before_own_q = false;  // Conv → Relu → Q → DQ → Add
  bool quantized_sum = true;       // a Q after the Add's Relu; else the sum is the graph's float output
  bool residual_conv = false;      // the residual a 1 × 1 conv's Q → DQ too (a ResNet's downsampling branch)
};

// x [2, 8, 6, 5], r [2, 8, 6, 5] → Q → DQ each; Conv(DQ(w [8, 8, 3, 3]), b, pads 1) → Q(s_y) → DQ →
// Add with DQ(r) → Relu → Q(s_z) → DQ → y.
Graph graph(const Form& f) {
  Graph g;
  g.opsets = {{"", 17}};
  const std::vector<Dim> dims = {Dim{2, ""}, Dim{8, ""}, Dim{6, ""}, Dim{5, ""}};
  g.inputs = {{"x", DType::Float32, dims}, {"r", DType::Float32, dims}};
  g.outputs = {{"y", DType::Float32, std::nullopt}};
  if (f.own_q_is_output) g.outputs.push_back({"yq", DType::Int8, std::nullopt});
  if (f.own_q_is_output && f.residual_conv) g.outputs.push_back({"h2q", DType::Int8, std::nullopt});
  g.initializers["s_x"] = Tensor::scalar<float>(0.02f);
  g.initializers["s_r"] = Tensor::scalar<float>(0.017f);
  g.initializers["s_y"] = Tensor::scalar<float>(0.013f);
  g.initializers["s_z"] = Tensor::scalar<float>(kSumScale);
  g.initializers["zp"] = Tensor::scalar<int8_t>(0);
  std::vector<float> s_w;
  std::vector<int8_t> w;
  for (int64_t c = 0; c < 8; ++c) s_w.push_back(0.0007f + 0.0001f * float(c));
  for (int64_t i = 0; i < 8 * 8 * 9; ++i) w.push_back(int8_t((i * 37) % 255 - 127));
  g.initializers["s_w"] = Tensor::from_vector<float>({8}, s_w);
  g.initializers["zp_w"] = Tensor::from_vector<int8_t>({8}, std::vector<int8_t>(8, 0));
  g.initializers["w_q"] = Tensor::from_vector<int8_t>({8, 8, 3, 3}, w);
  g.initializers["b"] = Tensor::from_vector<float>({8}, {0.1f, -0.2f, 0.3f, 0.0f, -0.5f, 0.25f, 0.05f, -0.05f});
  Node dqw = node("DequantizeLinear", "dqw", {"w_q", "s_w", "zp_w"}, {"wd"});
  dqw.attributes["axis"] = Attribute::of_int(0);
  Node conv = node("Conv", "conv", {"xd", "wd", "b"}, {"h"});
  conv.attributes["pads"] = Attribute::of_ints({1, 1, 1, 1});
  g.nodes = {node("QuantizeLinear", "qx", {"x", "s_x", "zp"}, {"xq"}), node("DequantizeLinear", "dqx", {"xq", "s_x", "zp"}, {"xd"}),
             node("QuantizeLinear", "qr", {"r", "s_r", "zp"}, {"rq"}), node("DequantizeLinear", "dqr", {"rq", "s_r", "zp"}, {"rd"}), dqw, conv};
  if (f.relu_before_own_q) g.nodes.push_back(node("Relu", "conv_relu", {"h"}, {"h_relu"}));
  g.nodes.push_back(node("QuantizeLinear", "qy", {f.relu_before_own_q ? "h_relu" : "h", "s_y", "zp"}, {"yq"}));
  g.nodes.push_back(node("DequantizeLinear", "dqy", {"yq", "s_y", "zp"}, {"yd"}));
  std::string residual = "rd";
  if (f.residual_conv) {  // after the first conv, as exporters order a ResNet's downsampling branch
    g.initializers["w2_q"] = Tensor::from_vector<int8_t>({8, 8, 1, 1}, std::vector<int8_t>(w.begin(), w.begin() + 64));
    g.nodes.push_back(node("DequantizeLinear", "dqw2", {"w2_q", "s_w", "zp_w"}, {"w2d"}));
    g.nodes.back().attributes["axis"] = Attribute::of_int(0);
    g.nodes.push_back(node("Conv", "conv2", {"rd", "w2d", "b"}, {"h2"}));
    g.nodes.push_back(node("QuantizeLinear", "qh2", {"h2", "s_r", "zp"}, {"h2q"}));
    g.nodes.push_back(node("DequantizeLinear", "dqh2", {"h2q", "s_r", "zp"}, {"h2d"}));
    residual = "h2d";
  }
  g.nodes.push_back(node("Add", "add", f.residual_first ? std::vector<std::string>{residual, "yd"} : std::vector<std::string>{"yd", residual},
                         {"sum"}));
  g.nodes.push_back(node("Relu", "relu", {"sum"}, {f.quantized_sum ? "act" : "y"}));
  if (f.quantized_sum) {
    g.nodes.push_back(node("QuantizeLinear", "qz", {"act", "s_z", "zp"}, {"zq"}));
    g.nodes.push_back(node("DequantizeLinear", "dqz", {"zq", "s_z", "zp"}, {"y"}));
  }
  return g;
}

std::map<std::string, Tensor> inputs(uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> v(0.0f, 1.2f);
  Tensor x(DType::Float32, {2, 8, 6, 5}), r(DType::Float32, {2, 8, 6, 5});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = v(rng), r.data<float>()[i] = v(rng);
  return {{"x", x}, {"r", r}};
}

int count_ops(const Graph& g, const std::string& op_type) {
  int n = 0;
  for (const Node& node : g.nodes) n += node.op_type == op_type;
  return n;
}

const Node& the_conv(const Graph& g) {
  for (const Node& n : g.nodes)
    if (n.op_type == "QConv") return n;
  throw Error("no QConv");
}

Tensor run(const Graph& g, const std::map<std::string, Tensor>& in, const std::string& output = "y") {
  return Executor(g, {&int8_reference_backend(), &cpu_backend()}).run(in).at(output);
}

TEST(RoundedResidual, ConvQDqAddFusesIntoOneQConvInEitherOrder) {
  for (bool first : {false, true}) {
    Form f;
    f.residual_first = first;
    const Lowered l = lower_qdq(graph(f));
    EXPECT_EQ(count_ops(l.graph, "QConv"), 1);
    EXPECT_EQ(count_ops(l.graph, "QAdd"), 0);
    EXPECT_EQ(count_ops(l.graph, "Add"), 0);
    const Node& conv = the_conv(l.graph);
    EXPECT_EQ(conv.inputs.size(), 5u);
    EXPECT_EQ(conv.attr_float("sum_scale", 0.0f), float(0.013f / kSumScale));
    EXPECT_EQ(conv.attr_float("residual_scale", 0.0f), float(0.017f / kSumScale));
    EXPECT_EQ(conv.attr_int("residual_first", 0), first ? 1 : 0);
    EXPECT_EQ(conv.attr_int("lo", -128), 0);  // the Relu after the Add
  }
}

// The fused op against the QConv → QAdd pair the lowering writes where the conv's int8 output must
// stay (it is also a graph output): the same bytes. And against the QDQ graph op by op: one step.
TEST(RoundedResidual, EqualsTheUnfusedPairBitForBitAndTheQdqGraphWithinAStep) {
  for (bool first : {false, true}) {
    Form fused_form, pair_form;
    fused_form.residual_first = pair_form.residual_first = first;
    pair_form.own_q_is_output = true;
    const Graph qdq = graph(fused_form);
    const Lowered fused = lower_qdq(qdq), pair = lower_qdq(graph(pair_form));
    ASSERT_EQ(count_ops(pair.graph, "QAdd"), 1);
    ASSERT_FALSE(the_conv(pair.graph).has("sum_scale"));
    int64_t values = 0, equal_to_qdq = 0;
    for (uint32_t seed = 1; seed <= 6; ++seed) {
      const auto in = inputs(seed);
      const Tensor a = run(fused.graph, in), b = run(pair.graph, in), want = Executor(qdq).run(in).at("y");
      ASSERT_EQ(a.numel(), b.numel());
      for (int64_t i = 0; i < a.numel(); ++i) {
        ASSERT_EQ(a.data<float>()[i], b.data<float>()[i]) << "seed " << seed << " index " << i;
        EXPECT_LE(std::fabs(a.data<float>()[i] - want.data<float>()[i]), kSumScale * 1.0001f) << i;
        equal_to_qdq += a.data<float>()[i] == want.data<float>()[i];
      }
      values += a.numel();
    }
    EXPECT_GE(double(equal_to_qdq), 0.98 * double(values));
  }
}

// Both operands a conv's Q → DQ: the first conv takes the Add, the second ends at its own Q (its
// output the first's residual), bit for bit the two QConvs and the QAdd apart.
TEST(RoundedResidual, TwoConvsIntoOneAddFuseOnce) {
  Form f, pair;
  f.residual_conv = pair.residual_conv = pair.own_q_is_output = true;
  const Lowered l = lower_qdq(graph(f)), apart = lower_qdq(graph(pair));
  EXPECT_EQ(count_ops(l.graph, "QConv"), 2);
  EXPECT_EQ(count_ops(l.graph, "QAdd"), 0);
  EXPECT_EQ(count_ops(apart.graph, "QAdd"), 1);
  int fused = 0;
  for (const Node& n : l.graph.nodes) fused += n.op_type == "QConv" && n.has("sum_scale");
  EXPECT_EQ(fused, 1);
  const auto in = inputs(11);
  const Tensor a = run(l.graph, in), b = run(apart.graph, in);
  for (int64_t i = 0; i < a.numel(); ++i) ASSERT_EQ(a.data<float>()[i], b.data<float>()[i]) << i;
}

TEST(RoundedResidual, NotFusedWhereTheFormIsNotWhole) {
  Form relu_first;  // Conv → Relu → own Q: the conv's step would need bounds of its own
  relu_first.relu_before_own_q = true;
  const Lowered a = lower_qdq(graph(relu_first));
  EXPECT_FALSE(the_conv(a.graph).has("sum_scale"));
  EXPECT_EQ(count_ops(a.graph, "QAdd"), 1);
  Form float_sum;  // no Q after the Add: the conv ends at its own Q, the Add stays FP32
  float_sum.quantized_sum = false;
  const Lowered b = lower_qdq(graph(float_sum));
  EXPECT_FALSE(the_conv(b.graph).has("sum_scale"));
  EXPECT_EQ(the_conv(b.graph).inputs.size(), 4u);
  EXPECT_EQ(count_ops(b.graph, "Add"), 1);
  const auto in = inputs(7);
  const Tensor want = Executor(graph(float_sum)).run(in).at("y"), got = run(b.graph, in);
  for (int64_t i = 0; i < got.numel(); ++i) EXPECT_NEAR(got.data<float>()[i], want.data<float>()[i], 1e-5f) << i;
}

}  // namespace
}  // namespace q8
