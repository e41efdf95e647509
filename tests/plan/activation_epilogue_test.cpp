// Swish, HardSwish and Sigmoid in a weighted op's epilogue (docs/quantization.md, "Activations in
// the epilogue"): the lowering of Conv (+ Q) with each form exporters write into one QConv, and of
// MatMul + Add + Swish into one QGemm, against the QDQ graph run op by op; and what must not fuse.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/exec/executor.h"
#include "engine/plan/lower.h"
#include "engine/plan/reference/backend.h"
#include "tests/plan/node_builder.h"

namespace q8 {
namespace {

using test::node;

constexpr float kOutScale = 0.013f;

// x [2, 3, 6, 5] → Q → DQ → Conv(DQ(w [4, 3, 3, 3], per channel), b, pads 1) → `form` → [Q → DQ] → y.
// Forms: "Swish" Mul(h, Sigmoid(h)), "SwishSwapped" Mul(Sigmoid(h), h), "HardSwish", "Sigmoid".
// With `gemm`, x [2, 3, 4] through MatMul(DQ(w [4, 6])) + Add(b) instead.
Graph graph(const std::string& form, bool quantize_output, bool gemm = false) {
  Graph g;
  g.opsets = {{"", 17}};
  const std::vector<Dim> x_dims = gemm ? std::vector<Dim>{Dim{2, ""}, Dim{3, ""}, Dim{4, ""}}
                                       : std::vector<Dim>{Dim{2, ""}, Dim{3, ""}, Dim{6, ""}, Dim{5, ""}};
  g.inputs = {{"x", DType::Float32, x_dims}};
  g.outputs = {{"y", DType::Float32, std::nullopt}};
  g.initializers["s_x"] = Tensor::scalar<float>(0.02f);
  g.initializers["s_y"] = Tensor::scalar<float>(kOutScale);
  g.initializers["zp"] = Tensor::scalar<int8_t>(0);
  const int64_t m = gemm ? 6 : 4, count = gemm ? 24 : 108;
  std::vector<float> s_w;
  std::vector<int8_t> w;
  for (int64_t c = 0; c < m; ++c) s_w.push_back(0.003f + 0.001f * float(c));
  for (int64_t i = 0; i < count; ++i) w.push_back(int8_t((i * 37) % 255 - 127));
  g.initializers["s_w"] = Tensor::from_vector<float>({m}, s_w);
  g.initializers["zp_w"] = Tensor::from_vector<int8_t>({m}, std::vector<int8_t>(size_t(m), 0));
  g.initializers["w_q"] = gemm ? Tensor::from_vector<int8_t>({4, 6}, w) : Tensor::from_vector<int8_t>({4, 3, 3, 3}, w);
  std::vector<float> b = {0.1f, -0.2f, 0.3f, 0.0f, -0.5f, 0.25f};
  b.resize(size_t(m));
  g.initializers["b"] = Tensor::from_vector<float>({m}, b);
  Node dqw = node("DequantizeLinear", "dqw", {"w_q", "s_w", "zp_w"}, {"wd"});
  dqw.attributes["axis"] = Attribute::of_int(gemm ? 1 : 0);
  g.nodes = {node("QuantizeLinear", "qx", {"x", "s_x", "zp"}, {"xq"}), node("DequantizeLinear", "dqx", {"xq", "s_x", "zp"}, {"xd"}), dqw};
  if (gemm) {
    g.nodes.push_back(node("MatMul", "fc", {"xd", "wd"}, {"mm"}));
    g.nodes.push_back(node("Add", "fc_bias", {"b", "mm"}, {"h"}));
  } else {
    Node conv = node("Conv", "conv", {"xd", "wd", "b"}, {"h"});
    conv.attributes["pads"] = Attribute::of_ints({1, 1, 1, 1});
    g.nodes.push_back(conv);
  }
  const auto add = [&](Node n) { g.nodes.push_back(std::move(n)); };
  if (form == "Swish") add(node("Sigmoid", "sig", {"h"}, {"s"})), add(node("Mul", "silu", {"h", "s"}, {"act"}));
  if (form == "SwishSwapped") add(node("Sigmoid", "sig", {"h"}, {"s"})), add(node("Mul", "silu", {"s", "h"}, {"act"}));
  if (form == "HardSwish") add(node("HardSwish", "hswish", {"h"}, {"act"}));
  if (form == "Sigmoid") add(node("Sigmoid", "sig", {"h"}, {"act"}));
  if (quantize_output) {
    add(node("QuantizeLinear", "qy", {"act", "s_y", "zp"}, {"yq"}));
    add(node("DequantizeLinear", "dqy", {"yq", "s_y", "zp"}, {"y"}));
  } else {
    add(node("Identity", "out", {"act"}, {"y"}));
  }
  return g;
}

Tensor input(bool gemm) {
  Tensor x(DType::Float32, gemm ? Dims{2, 3, 4} : Dims{2, 3, 6, 5});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = 2.4f * std::sin(0.7f * float(i)) - 0.1f;
  return x;
}

// Lowers g, expects one fused `op` with `activation` and no FP32 op left, and compares it with the
// QDQ graph run op by op: float out within float rounding of the graph's sum order, int8 out within
// one step and equal but where the graph's float sum lands on the other side of a rounding boundary.
void expect_fused(const Graph& g, const char* op, const std::string& activation, bool quantize_output, bool gemm) {
  const Lowered l = lower_qdq(g);
  int fused_ops = 0, float_ops = 0;
  const Node* fused = nullptr;
  for (const Node& n : l.graph.nodes) {
    if (n.domain == kInt8Domain && n.op_type == op) ++fused_ops, fused = &n;
    if (n.domain.empty() && n.op_type != "QuantizeLinear" && n.op_type != "DequantizeLinear" && n.op_type != "Identity") ++float_ops;
  }
  ASSERT_EQ(fused_ops, 1) << format_lowering_report(l);
  EXPECT_EQ(float_ops, 0) << format_lowering_report(l);
  EXPECT_EQ(fused->attr_string("activation", ""), activation);
  EXPECT_EQ(fused->attr_float("y_scale", 0.0f), quantize_output ? kOutScale : 0.0f);

  const Tensor want = Executor(g).run({{"x", input(gemm)}}).at("y");
  const Tensor got = Executor(l.graph, {&int8_reference_backend(), &cpu_backend()}).run({{"x", input(gemm)}}).at("y");
  ASSERT_EQ(got.dims(), want.dims());
  int equal = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const float w = want.data<float>()[i], v = got.data<float>()[i];
    EXPECT_LE(std::fabs(v - w), quantize_output ? kOutScale * 1.0001f : 1e-5f * (1.0f + std::fabs(w))) << i;
    equal += v == w;
  }
  if (quantize_output) {
    EXPECT_GE(equal, want.numel() - want.numel() / 50) << "of " << want.numel();
  }
}

class ConvActivations : public ::testing::TestWithParam<std::string> {};

TEST_P(ConvActivations, FuseIntoOneQConvThatMatchesTheGraph) {
  const std::string form = GetParam();
  for (bool quantize_output : {true, false}) {
    SCOPED_TRACE(quantize_output ? "int8 out" : "float out");
    expect_fused(graph(form, quantize_output), "QConv", form == "SwishSwapped" ? "Swish" : form, quantize_output, false);
  }
}

INSTANTIATE_TEST_SUITE_P(Forms, ConvActivations, ::testing::Values("Swish", "SwishSwapped", "HardSwish", "Sigmoid"));

TEST(ActivationEpilogue, SwishAfterALinearFusesIntoOneQGemm) {
  for (bool quantize_output : {true, false}) {
    SCOPED_TRACE(quantize_output ? "int8 out" : "float out");
    expect_fused(graph("Swish", quantize_output, true), "QGemm", "Swish", quantize_output, true);
  }
}

// The conv's output read by another node too (a graph output here), or a Mul of the Sigmoid with
// another tensor (a squeeze-excitation gate's Mul): the Mul stays out of the conv (with its Q, a
// MulQuantize), and only what alone reads the conv's output may fuse.
TEST(ActivationEpilogue, NotFusedWhereTheFormIsNotWhole) {
  Graph g = graph("Swish", true);
  g.outputs.push_back({"h", DType::Float32, std::nullopt});
  Lowered l = lower_qdq(g);
  for (const Node& n : l.graph.nodes)
    if (n.op_type == "QConv") {
      EXPECT_FALSE(n.attributes.count("activation"));
    }

  g = graph("Swish", true);
  for (Node& n : g.nodes)
    if (n.name == "silu") n.inputs = {"s", "x"};  // a gate on another tensor: Sigmoid alone is the epilogue
  l = lower_qdq(g);
  bool mul_left = false, sigmoid_fused = false;
  for (const Node& n : l.graph.nodes) {
    mul_left = mul_left || n.op_type == "MulQuantize";
    sigmoid_fused = sigmoid_fused || (n.op_type == "QConv" && n.attr_string("activation", "") == "Sigmoid");
  }
  EXPECT_TRUE(mul_left) << format_lowering_report(l);
  EXPECT_TRUE(sigmoid_fused) << format_lowering_report(l);
}

}  // namespace
}  // namespace q8
