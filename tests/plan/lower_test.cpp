// The lowering on hand-built QDQ graphs: what each rule fuses, what it leaves FP32 and why, the
// folded bounds, the all-zero channel, the guards' errors, and that the INT8 reference's result
// equals the float QDQ semantics wherever no rounding tie intervenes.
#include "engine/plan/lower.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "engine/exec/executor.h"
#include "engine/plan/reference/backend.h"
#include "engine/plan/requantize.h"
#include "tests/plan/node_builder.h"

namespace q8 {
namespace {

using test::node;

// x → Q(s_x) → DQ → Conv(DQ(w_q, s_w per channel), b) → [activation nodes] → Q(s_y) → DQ → y
struct ConvCase {
  float s_x = 0.05f, s_y = 0.1f;
  std::vector<float> s_w = {0.01f, 0.02f};
  std::vector<int8_t> w_q = {1, -2, 3, 4, 0, 0, 0, 0};  // [2, 1, 2, 2]: channel 1 all zero
  std::vector<float> bias = {0.3f, -0.25f};
  std::vector<Node> activations;  // read "conv", write "act"
  bool uint8_output = false;
};

Graph conv_graph(const ConvCase& c) {
  Graph g;
  g.opsets = {{"", 13}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{Dim{1, ""}, Dim{1, ""}, Dim{3, ""}, Dim{3, ""}}}};
  g.outputs = {{"y", DType::Float32, std::nullopt}};
  g.initializers["s_x"] = Tensor::scalar<float>(c.s_x);
  g.initializers["s_y"] = Tensor::scalar<float>(c.s_y);
  g.initializers["zp"] = Tensor::scalar<int8_t>(0);
  g.initializers["zp_u8"] = Tensor::scalar<uint8_t>(0);
  g.initializers["s_w"] = Tensor::from_vector<float>({2}, c.s_w);
  g.initializers["zp_w"] = Tensor::from_vector<int8_t>({2}, {0, 0});
  g.initializers["w_q"] = Tensor::from_vector<int8_t>({2, 1, 2, 2}, c.w_q);
  g.initializers["b"] = Tensor::from_vector<float>({2}, c.bias);
  g.nodes = {node("QuantizeLinear", "qx", {"x", "s_x", "zp"}, {"xq"}),
             node("DequantizeLinear", "dqx", {"xq", "s_x", "zp"}, {"xd"}),
             node("DequantizeLinear", "dqw", {"w_q", "s_w", "zp_w"}, {"wd"}, {{"axis", Attribute::of_int(0)}}),
             node("Conv", "conv", {"xd", "wd", "b"}, {"conv"})};
  std::string tail = "conv";
  for (const Node& a : c.activations) {
    g.nodes.push_back(a);
    tail = a.outputs[0];
  }
  g.nodes.push_back(node("QuantizeLinear", "qy", {tail, "s_y", c.uint8_output ? "zp_u8" : "zp"}, {"yq"}));
  g.nodes.push_back(node("DequantizeLinear", "dqy", {"yq", "s_y", c.uint8_output ? "zp_u8" : "zp"}, {"y"}));
  return g;
}

const Node& fused(const Lowered& l, const std::string& op_type) {
  for (const Node& n : l.graph.nodes)
    if (n.domain == kInt8Domain && n.op_type == op_type) return n;
  throw Error("no fused " + op_type);
}

const LoweringEntry& entry(const Lowered& l, const std::string& node_description) {
  for (const auto& e : l.report)
    if (e.node == node_description) return e;
  throw Error("no report entry for " + node_description);
}

TEST(Lower, ConvWithReluAndClipFoldsIntoTheClampBounds) {
  ConvCase c;
  c.activations = {node("Relu", "relu", {"conv"}, {"r"}),
                   node("Clip", "clip", {"r", "lo", "hi"}, {"act"})};
  Graph g = conv_graph(c);
  g.initializers["lo"] = Tensor::scalar<float>(-1.0f);
  g.initializers["hi"] = Tensor::scalar<float>(6.0f);
  const Lowered l = lower_qdq(g);
  const Node& conv = fused(l, "QConv");
  EXPECT_EQ(conv.attr_int("lo", -999), 0);                         // Relu, then Clip's −1 is below it
  EXPECT_EQ(conv.attr_int("hi", -999), quantize_value(6.0f, 0.1f));  // 60
  EXPECT_EQ(conv.outputs[0], "yq");
  EXPECT_EQ(entry(l, "Relu 'relu'").outcome, "fused into QConv 'conv'");
  EXPECT_EQ(entry(l, "QuantizeLinear 'qy'").outcome, "fused into QConv 'conv'");
  EXPECT_EQ(entry(l, "DequantizeLinear 'dqw'").outcome, "removed (only fused ops read it)");
  EXPECT_EQ(l.report.size(), g.nodes.size());
  // Multipliers and int32 biases as docs/quantization.md defines them; channel 1 is all zero.
  const Tensor& m = *l.graph.constant(conv.inputs[3]);
  const Tensor& bq = *l.graph.constant(conv.inputs[2]);
  EXPECT_EQ(m.data<float>()[0], requant_multiplier(0.05f, 0.01f, 0.1f));
  EXPECT_EQ(bq.data<int32_t>()[0], int32_t(quantize_bias(0.3f, 0.05f, 0.01f)));
  EXPECT_EQ(m.data<float>()[1], 1.0f);
  EXPECT_EQ(bq.data<int32_t>()[1], int32_t(std::nearbyint(-0.25f / 0.1f)));
}

TEST(Lower, Int8ResultEqualsTheFloatQdqModelAwayFromTies) {
  ConvCase c;
  c.activations = {node("Relu", "relu", {"conv"}, {"act"})};
  const Graph g = conv_graph(c);
  Tensor x(DType::Float32, {1, 1, 3, 3});
  for (int i = 0; i < 9; ++i) x.data<float>()[i] = 0.37f * float(i) - 1.3f;
  const Tensor want = Executor(g).run({{"x", x}}).at("y");
  const Tensor got = Executor(lower_qdq(g).graph, {&int8_reference_backend(), &cpu_backend()}).run({{"x", x}}).at("y");
  ASSERT_EQ(got.dims(), want.dims());
  int equal = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    EXPECT_LE(std::fabs(got.data<float>()[i] - want.data<float>()[i]), 0.1f + 1e-6f) << i;
    equal += got.data<float>()[i] == want.data<float>()[i];
  }
  EXPECT_GE(equal, want.numel() - 1);
  // Channel 1 (all-zero weights) is exactly Q(bias) clamped by the Relu: −0.25 → 0.
  for (int i = 4; i < 8; ++i) EXPECT_EQ(got.data<float>()[i], 0.0f);
}

// Two convolutions in a row, 2 → 3 → 2 channels: x → Q → DQ → Conv → Q → DQ → Conv → Q → DQ → y,
// every node named `name(i)`.
Graph two_convs(const std::function<std::string(int)>& name) {
  Graph g;
  g.opsets = {{"", 13}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{Dim{1, ""}, Dim{2, ""}, Dim{3, ""}, Dim{3, ""}}}};
  g.outputs = {{"y", DType::Float32, std::nullopt}};
  g.initializers["s"] = Tensor::scalar<float>(0.05f);
  g.initializers["zp"] = Tensor::scalar<int8_t>(0);
  g.initializers["s_w1"] = Tensor::from_vector<float>({3}, {0.01f, 0.02f, 0.015f});
  g.initializers["zp_w1"] = Tensor::from_vector<int8_t>({3}, {0, 0, 0});
  g.initializers["w1"] = Tensor::from_vector<int8_t>({3, 2, 1, 1}, {5, -7, 11, 3, -2, 9});
  g.initializers["b1"] = Tensor::from_vector<float>({3}, {0.1f, -0.2f, 0.05f});
  g.initializers["s_w2"] = Tensor::from_vector<float>({2}, {0.03f, 0.01f});
  g.initializers["zp_w2"] = Tensor::from_vector<int8_t>({2}, {0, 0});
  g.initializers["w2"] = Tensor::from_vector<int8_t>({2, 3, 1, 1}, {4, -6, 8, -1, 2, 13});
  g.initializers["b2"] = Tensor::from_vector<float>({2}, {-0.3f, 0.25f});
  g.nodes = {node("QuantizeLinear", name(0), {"x", "s", "zp"}, {"xq"}),
             node("DequantizeLinear", name(1), {"xq", "s", "zp"}, {"xd"}),
             node("DequantizeLinear", name(2), {"w1", "s_w1", "zp_w1"}, {"w1d"}, {{"axis", Attribute::of_int(0)}}),
             node("Conv", name(3), {"xd", "w1d", "b1"}, {"c1"}),
             node("QuantizeLinear", name(4), {"c1", "s", "zp"}, {"c1q"}),
             node("DequantizeLinear", name(5), {"c1q", "s", "zp"}, {"c1d"}),
             node("DequantizeLinear", name(6), {"w2", "s_w2", "zp_w2"}, {"w2d"}, {{"axis", Attribute::of_int(0)}}),
             node("Conv", name(7), {"c1d", "w2d", "b2"}, {"c2"}),
             node("QuantizeLinear", name(8), {"c2", "s", "zp"}, {"c2q"}),
             node("DequantizeLinear", name(9), {"c2q", "s", "zp"}, {"y"})};
  return g;
}

// ONNX lets node names be empty or repeated, and a fused node's constants are named after it:
// unnamed and same-named convolutions each keep their own bias and multipliers (the second
// conv's three-channel input once took the first's constants), and the plan's result is that
// of the graph with distinct names, bit for bit.
TEST(Lower, UnnamedAndSameNamedNodesKeepTheirOwnConstants) {
  const Graph distinct = two_convs([](int i) { return "n" + std::to_string(i); });
  Tensor x(DType::Float32, {1, 2, 3, 3});
  for (int i = 0; i < 18; ++i) x.data<float>()[i] = 0.29f * float(i) - 2.1f;
  const Tensor want = Executor(lower_qdq(distinct).graph, {&int8_reference_backend(), &cpu_backend()}).run({{"x", x}}).at("y");
  for (const std::string& shared : {std::string(), std::string("conv")}) {
    const Lowered l = lower_qdq(two_convs([&](int) { return shared; }));
    int convs = 0;
    for (const Node& n : l.graph.nodes) {
      if (n.domain != kInt8Domain || n.op_type != "QConv") continue;
      const int64_t channels = l.graph.constant(n.inputs[1])->dim(0);
      EXPECT_EQ(l.graph.constant(n.inputs[2])->numel(), channels) << "names '" << shared << "': bias of QConv " << convs;
      EXPECT_EQ(l.graph.constant(n.inputs[3])->numel(), channels) << "names '" << shared << "': multipliers of QConv " << convs;
      ++convs;
    }
    EXPECT_EQ(convs, 2);
    const Tensor got = Executor(l.graph, {&int8_reference_backend(), &cpu_backend()}).run({{"x", x}}).at("y");
    ASSERT_EQ(got.dims(), want.dims());
    for (int64_t i = 0; i < want.numel(); ++i) EXPECT_EQ(got.data<float>()[i], want.data<float>()[i]) << "names '" << shared << "', " << i;
  }
}

// conv [1, 2, 2, 2] + DQ(Q(r)) → Q: the residual is fused only where the shapes may be equal.
Graph residual_graph(const std::vector<Dim>& r_shape) {
  ConvCase c;
  c.activations = {node("QuantizeLinear", "qr", {"r", "s_x", "zp"}, {"rq"}), node("DequantizeLinear", "dqr", {"rq", "s_x", "zp"}, {"rd"}),
                   node("Add", "add", {"conv", "rd"}, {"act"})};
  Graph g = conv_graph(c);
  g.inputs.push_back({"r", DType::Float32, r_shape});
  g.value_info.push_back({"conv", DType::Float32, std::vector<Dim>{Dim{1, ""}, Dim{2, ""}, Dim{2, ""}, Dim{2, ""}}});
  return g;
}

TEST(Lower, ResidualAddIsFusedOnlyWhenItDoesNotBroadcast) {
  const Lowered same = lower_qdq(residual_graph({Dim{1, ""}, Dim{2, ""}, Dim{-1, "h"}, Dim{2, ""}}));
  EXPECT_EQ(fused(same, "QConv").inputs.size(), 5u);
  EXPECT_EQ(entry(same, "Add 'add'").outcome, "fused into QConv 'conv'");
  const Lowered broadcast = lower_qdq(residual_graph({Dim{1, ""}, Dim{2, ""}, Dim{1, ""}, Dim{1, ""}}));
  EXPECT_EQ(fused(broadcast, "QConv").inputs.size(), 4u);
  EXPECT_NE(entry(broadcast, "Add 'add'").outcome.find("fused into"), 0u) << entry(broadcast, "Add 'add'").outcome;
}

TEST(Lower, Uint8OutputStaysFp32WithItsReason) {
  ConvCase c;
  c.uint8_output = true;
  const Lowered l = lower_qdq(conv_graph(c));
  EXPECT_EQ(l.fused_nodes, 1);  // FP32 output form: the Q after it is uint8
  const Node& conv = fused(l, "QConv");
  EXPECT_EQ(conv.outputs[0], "conv");
  EXPECT_EQ(l.graph.constant(conv.inputs[2])->dtype(), DType::Float32);
  EXPECT_EQ(entry(l, "QuantizeLinear 'qy'").outcome, "kept (an FP32 op reads or writes it)");
}

TEST(Lower, MultiplierOutOfRangeIsAnErrorNamingTheNode) {
  ConvCase c;
  c.s_y = 1e-7f;  // M = 0.05 · 0.01 / 1e-7 = 5000
  try {
    lower_qdq(conv_graph(c));
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("Conv 'conv'"), std::string::npos) << what;
    EXPECT_NE(what.find("requantization multiplier M[0]"), std::string::npos) << what;
  }
}

TEST(Lower, EqualScaleDequantizeQuantizePairsAreDropped) {
  Graph g;
  g.opsets = {{"", 13}};
  g.inputs = {{"x", DType::Int8, std::vector<Dim>{Dim{4, ""}}}};
  g.outputs = {{"y", DType::Int8, std::nullopt}, {"z", DType::Int8, std::nullopt}};
  g.initializers["s"] = Tensor::scalar<float>(0.5f);
  g.initializers["t"] = Tensor::scalar<float>(0.25f);
  g.initializers["zp"] = Tensor::scalar<int8_t>(0);
  g.nodes = {node("DequantizeLinear", "dq", {"x", "s", "zp"}, {"xd"}), node("QuantizeLinear", "same", {"xd", "s", "zp"}, {"y"}),
             node("QuantizeLinear", "other", {"xd", "t", "zp"}, {"z"})};
  const Lowered l = lower_qdq(g);
  EXPECT_EQ(entry(l, "QuantizeLinear 'same'").outcome, "removed (DQ → Q with equal scales)");
  EXPECT_EQ(entry(l, "QuantizeLinear 'other'").outcome, "kept (an FP32 op reads or writes it)");
  const Tensor x = Tensor::from_vector<int8_t>({4}, {-128, -3, 5, 127});
  const TensorMap out = Executor(l.graph, {&int8_reference_backend(), &cpu_backend()}).run({{"x", x}});
  EXPECT_EQ(std::vector<int8_t>(out.at("y").data<int8_t>(), out.at("y").data<int8_t>() + 4), (std::vector<int8_t>{-128, -3, 5, 127}));
  EXPECT_EQ(std::vector<int8_t>(out.at("z").data<int8_t>(), out.at("z").data<int8_t>() + 4), (std::vector<int8_t>{-128, -6, 10, 127}));
}

TEST(Lower, ConcatWithDifferentScalesUsesExactTables) {
  Graph g;
  g.opsets = {{"", 13}};
  g.inputs = {{"a", DType::Int8, std::vector<Dim>{Dim{1, ""}, Dim{256, ""}}}, {"b", DType::Int8, std::vector<Dim>{Dim{1, ""}, Dim{256, ""}}}};
  g.outputs = {{"y", DType::Int8, std::nullopt}};
  g.initializers["sa"] = Tensor::scalar<float>(0.013f);
  g.initializers["sb"] = Tensor::scalar<float>(0.031f);
  g.initializers["zp"] = Tensor::scalar<int8_t>(0);
  g.nodes = {node("DequantizeLinear", "da", {"a", "sa", "zp"}, {"ad"}), node("DequantizeLinear", "db", {"b", "sb", "zp"}, {"bd"}),
             node("Concat", "cat", {"ad", "bd"}, {"c"}, {{"axis", Attribute::of_int(1)}}),
             node("QuantizeLinear", "q", {"c", "sb", "zp"}, {"y"})};
  Tensor a(DType::Int8, {1, 256}), b(DType::Int8, {1, 256});
  for (int v = 0; v < 256; ++v) a.data<int8_t>()[v] = b.data<int8_t>()[v] = int8_t(v - 128);
  const Lowered l = lower_qdq(g);
  EXPECT_EQ(fused(l, "QConcat").inputs.size(), 3u);
  const Tensor got = Executor(l.graph, {&int8_reference_backend(), &cpu_backend()}).run({{"a", a}, {"b", b}}).at("y");
  const Tensor want = Executor(g).run({{"a", a}, {"b", b}}).at("y");  // the float QDQ semantics
  ASSERT_EQ(got.dims(), want.dims());
  for (int64_t i = 0; i < want.numel(); ++i) EXPECT_EQ(got.data<int8_t>()[i], want.data<int8_t>()[i]) << i;
}

}  // namespace
}  // namespace q8
