// GELU in a weighted op's epilogue (docs/quantization.md, "Activations in the epilogue"): q8's erf and
// tanh against the double functions, and the lowering of MatMul + Add + GELU (+ Q) into one QGemm
// for every form exporters write, against the QDQ graph run op by op.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "engine/exec/executor.h"
#include "engine/ops/gelu_float.h"
#include "engine/plan/lower.h"
#include "engine/plan/reference/backend.h"
#include "tests/plan/node_builder.h"

namespace q8 {
namespace {

// Units in the last place of the float nearest `want` between got and want.
double ulps(float got, double want) {
  const float w = float(want);
  const double ulp = std::fabs(double(std::nextafter(std::fabs(w), INFINITY)) - std::fabs(double(w)));
  return std::fabs(double(got) - want) / ulp;
}

// The largest error over every 211th float32 of [-limit, limit].
double max_ulps(float (*f)(float), double (*ref)(double), float limit) {
  double worst = 0.0;
  uint32_t top;
  std::memcpy(&top, &limit, 4);
  for (uint32_t bits = 0; bits <= top; bits += 211)
    for (float sign : {1.0f, -1.0f}) {
      float x;
      std::memcpy(&x, &bits, 4);
      x *= sign;
      worst = std::max(worst, ulps(f(x), ref(double(x))));
    }
  return worst;
}

TEST(GeluEpilogue, ErfAndTanhAreWithinAFewUlpOfTheDoubleFunctions) {
  const double erf_ulps = max_ulps(q8_erf, [](double x) { return std::erf(x); }, 6.0f);
  const double tanh_ulps = max_ulps(q8_tanh, [](double x) { return std::tanh(x); }, 12.0f);
  std::printf("q8_erf within %.2f ulp, q8_tanh within %.2f ulp\n", erf_ulps, tanh_ulps);
  EXPECT_LE(erf_ulps, 3.0);  // measured 2.44 (every 31st float: the same)
  EXPECT_LE(tanh_ulps, 2.0);  // measured 1.29
  EXPECT_TRUE(std::isnan(q8_erf(NAN)) && std::isnan(q8_tanh(NAN)));
  EXPECT_EQ(q8_erf(INFINITY), 1.0f);
  EXPECT_EQ(q8_tanh(-INFINITY), -1.0f);
  EXPECT_TRUE(std::signbit(q8_erf(-0.0f)) && std::signbit(q8_tanh(-0.0f)));
}

using test::node;

// x [2, 3, 4] → Q → DQ → MatMul(DQ(w [4, 6], per column)) → Add(b) → GELU (`form`) → [Q → DQ] → y.
Graph mlp_graph(const std::string& form, bool quantize_output) {
  Graph g;
  g.opsets = {{"", form == "Gelu" || form == "GeluTanh" ? 20 : 17}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{Dim{2, ""}, Dim{3, ""}, Dim{4, ""}}}};
  g.outputs = {{"y", DType::Float32, std::nullopt}};
  g.initializers["s_x"] = Tensor::scalar<float>(0.02f);
  g.initializers["s_y"] = Tensor::scalar<float>(0.011f);
  g.initializers["zp"] = Tensor::scalar<int8_t>(0);
  std::vector<float> s_w;
  std::vector<int8_t> w;
  for (int c = 0; c < 6; ++c) s_w.push_back(0.004f + 0.001f * float(c));
  for (int i = 0; i < 24; ++i) w.push_back(int8_t((i * 37) % 255 - 127));
  g.initializers["s_w"] = Tensor::from_vector<float>({6}, s_w);
  g.initializers["zp_w"] = Tensor::from_vector<int8_t>({6}, std::vector<int8_t>(6, 0));
  g.initializers["w_q"] = Tensor::from_vector<int8_t>({4, 6}, w);
  g.initializers["b"] = Tensor::from_vector<float>({6}, {0.1f, -0.2f, 0.3f, 0.0f, -0.5f, 0.25f});
  g.initializers["sqrt2"] = Tensor::scalar<float>(1.4142135381698608f);
  g.initializers["rsqrt2"] = Tensor::scalar<float>(0.7071067690849304f);
  g.initializers["one"] = Tensor::scalar<float>(1.0f);
  g.initializers["half"] = Tensor::scalar<float>(0.5f);
  g.nodes = {node("QuantizeLinear", "qx", {"x", "s_x", "zp"}, {"xq"}), node("DequantizeLinear", "dqx", {"xq", "s_x", "zp"}, {"xd"}),
             node("DequantizeLinear", "dqw", {"w_q", "s_w", "zp_w"}, {"wd"}, {{"axis", Attribute::of_int(1)}}),
             node("MatMul", "fc", {"xd", "wd"}, {"mm"}), node("Add", "fc_bias", {"b", "mm"}, {"h"})};
  const auto add = [&](Node n) { g.nodes.push_back(std::move(n)); };
  if (form == "Gelu") add(node("Gelu", "gelu", {"h"}, {"act"}));
  if (form == "GeluTanh") add(node("Gelu", "gelu", {"h"}, {"act"}, {{"approximate", Attribute::of_string("tanh")}}));
  if (form == "torch") {  // nn.GELU: ((x · (1 + erf(x / √2))) · 0.5
    add(node("Div", "div", {"h", "sqrt2"}, {"d"})), add(node("Erf", "erf", {"d"}, {"e"})), add(node("Add", "one_plus", {"e", "one"}, {"a"}));
    add(node("Mul", "times_x", {"h", "a"}, {"m"})), add(node("Mul", "half", {"m", "half"}, {"act"}));
  }
  if (form == "huggingface") {  // x · 0.5 · (1 + erf(x · (1/√2)))
    add(node("Mul", "half", {"h", "half"}, {"hh"})), add(node("Mul", "scale", {"rsqrt2", "h"}, {"d"}));
    add(node("Erf", "erf", {"d"}, {"e"})), add(node("Add", "one_plus", {"one", "e"}, {"a"})), add(node("Mul", "times", {"hh", "a"}, {"act"}));
  }
  if (form == "half_first") {  // x · ((1 + erf(x / √2)) · 0.5)
    add(node("Div", "div", {"h", "sqrt2"}, {"d"})), add(node("Erf", "erf", {"d"}, {"e"})), add(node("Add", "one_plus", {"e", "one"}, {"a"}));
    add(node("Mul", "half", {"a", "half"}, {"ah"})), add(node("Mul", "times_x", {"ah", "h"}, {"act"}));
  }
  if (quantize_output) {
    add(node("QuantizeLinear", "qy", {"act", "s_y", "zp"}, {"yq"}));
    add(node("DequantizeLinear", "dqy", {"yq", "s_y", "zp"}, {"y"}));
  } else {
    add(node("Identity", "out", {"act"}, {"y"}));
  }
  return g;
}

Tensor input() {
  Tensor x(DType::Float32, {2, 3, 4});
  for (int i = 0; i < 24; ++i) x.data<float>()[i] = 2.4f * std::sin(0.7f * float(i)) - 0.1f;
  return x;
}

class GeluForms : public ::testing::TestWithParam<std::string> {};

TEST_P(GeluForms, FuseIntoOneQGemmThatMatchesTheGraph) {
  for (bool quantize_output : {true, false}) {
    SCOPED_TRACE(quantize_output ? "int8 out" : "float out");
    const Graph g = mlp_graph(GetParam(), quantize_output);
    const Lowered l = lower_qdq(g);
    int qgemms = 0, float_ops = 0;
    const Node* fused = nullptr;
    for (const Node& n : l.graph.nodes) {
      if (n.domain == kInt8Domain && n.op_type == "QGemm") ++qgemms, fused = &n;
      if (n.domain.empty() && n.op_type != "QuantizeLinear" && n.op_type != "DequantizeLinear" && n.op_type != "Identity") ++float_ops;
    }
    ASSERT_EQ(qgemms, 1) << format_lowering_report(l);
    EXPECT_EQ(float_ops, 0) << format_lowering_report(l);
    EXPECT_EQ(fused->attr_string("activation", ""), "Gelu");
    EXPECT_EQ(fused->attr_string("approximate", ""), GetParam() == "GeluTanh" ? "tanh" : "none");
    EXPECT_EQ(fused->attr_float("y_scale", 0.0f), quantize_output ? 0.011f : 0.0f);

    const Tensor want = Executor(g).run({{"x", input()}}).at("y");
    const Tensor got = Executor(l.graph, {&int8_reference_backend(), &cpu_backend()}).run({{"x", input()}}).at("y");
    ASSERT_EQ(got.dims(), want.dims());
    int equal = 0;
    for (int64_t i = 0; i < want.numel(); ++i) {  // one step at most, where the graph's own GELU rounds differently
      const float w = want.data<float>()[i], v = got.data<float>()[i];
      EXPECT_LE(std::fabs(v - w), quantize_output ? 0.011f * 1.0001f : 1e-5f * (1.0f + std::fabs(w))) << i;
      equal += v == w;
    }
    if (quantize_output) {
      EXPECT_GE(equal, want.numel() - 2);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Forms, GeluForms, ::testing::Values("Gelu", "GeluTanh", "torch", "huggingface", "half_first"));

TEST(GeluEpilogue, NotFusedWhenTheFcOutputHasAnotherReader) {
  Graph g = mlp_graph("torch", true);
  g.outputs.push_back({"h", DType::Float32, std::nullopt});
  const Lowered l = lower_qdq(g);
  for (const Node& n : l.graph.nodes)
    if (n.op_type == "QGemm") {
      EXPECT_FALSE(n.attributes.count("activation"));
    }
  bool erf_left = false;
  for (const Node& n : l.graph.nodes) erf_left = erf_left || n.op_type == "Erf";
  EXPECT_TRUE(erf_left);
}

TEST(GeluEpilogue, NotFusedWhenAConstantIsNotGelus) {
  Graph g = mlp_graph("torch", true);
  g.initializers["sqrt2"] = Tensor::scalar<float>(1.5f);
  const Lowered l = lower_qdq(g);
  for (const Node& n : l.graph.nodes)
    if (n.op_type == "QGemm") {
      EXPECT_FALSE(n.attributes.count("activation"));
    }
}

}  // namespace
}  // namespace q8
