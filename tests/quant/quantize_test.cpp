// The Q/DQ pass on the pitfalls peers trip over: FC ≡ MatMul, deconvolution with C_in ≠ C_out and
// with groups (axis 1, never 0), BatchNorm folded first, opset upgrade, exclusions, missing ranges.
#include <gtest/gtest.h>

#include <cmath>

#include "calib/weight_ranges.h"
#include "engine/exec/executor.h"
#include "engine/onnx/export.h"
#include "engine/passes/graph_constants.h"
#include "quant/materialize.h"
#include "tests/ops/op_harness.h"

namespace q8 {
namespace {

// x → op(W[, B]) → y, with an activation range for x and y.
Graph single_op(const std::string& op, const Dims& x_dims, const Tensor& w, std::map<std::string, Attribute> attrs,
                int64_t opset = 13) {
  Graph g;
  g.opsets = {{"", opset}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{}}};
  for (int64_t d : x_dims) g.inputs[0].shape->push_back(Dim{d, ""});
  g.outputs = {{"y", DType::Float32, std::vector<Dim>(x_dims.size(), Dim{-1, ""})}};
  for (size_t d = 0; d < x_dims.size(); ++d) (*g.outputs[0].shape)[d].symbol = "d" + std::to_string(d);
  g.initializers["w"] = w;
  Node n;
  n.op_type = op, n.name = "node", n.inputs = {"x", "w"}, n.outputs = {"y"}, n.attributes = std::move(attrs);
  g.nodes.push_back(n);
  return g;
}

RangeTable table_for(std::initializer_list<std::pair<const char*, double>> ranges) {
  RangeTable t;
  for (const auto& [name, amax] : ranges) t.activations[name].descriptor.amax = {amax};
  return t;
}

// The weight DequantizeLinear: its scales, axis and int8 weight.
struct WeightDq {
  std::vector<float> scales;
  std::optional<int64_t> axis;
  Tensor q;
};
WeightDq weight_dq(const Graph& g) {
  for (const Node& n : g.nodes)
    if (n.op_type == "DequantizeLinear" && g.constant(n.inputs[0]) && g.constant(n.inputs[0])->dtype() == DType::Int8) {
      WeightDq r;
      const Tensor* s = g.constant(n.inputs[1]);
      r.scales.assign(s->data<float>(), s->data<float>() + s->numel());
      if (n.has("axis")) r.axis = n.attr_int("axis", 1);
      r.q = *g.constant(n.inputs[0]);
      return r;
    }
  throw Error("no weight DequantizeLinear");
}

TEST(Quantize, DeconvolutionWithCinNotCoutHasOneScalePerOutputChannel) {
  const Tensor w = random_tensor({64, 10, 3, 3}, 3);
  QuantizeReport report;
  const Graph q = quantize_graph(single_op("ConvTranspose", {1, 64, 5, 5}, w, {}), table_for({{"x", 2.0}}), {}, {}, report);
  const WeightDq dq = weight_dq(q);
  ASSERT_EQ(dq.axis, 1);  // never axis 0
  ASSERT_EQ(dq.scales.size(), 10u);
  const std::vector<double> amax = channel_amax(w, 1);
  for (size_t o = 0; o < 10; ++o) EXPECT_EQ(dq.scales[o], float(amax[o] / 127.0)) << "channel " << o;
  save_model(q, testing::TempDir() + "deconv.qdq.onnx");  // onnx::checker accepts it
}

TEST(Quantize, GroupedDeconvolutionKeepsExactScalesAndExportsTheGroupMax) {
  // W [C_in = 8, C_out/g = 3, 2, 2], g = 2: 6 output channels.
  const Tensor w = random_tensor({8, 3, 2, 2}, 4);
  const std::vector<double> exact = conv_transpose_channel_amax(w, 2);
  ASSERT_EQ(exact.size(), 6u);  // the engine's (and the range table's) per-output-channel amax
  for (int64_t o = 0; o < 6; ++o) {
    double m = 0;
    const int64_t gi = o / 3, j = o % 3;
    for (int64_t ci = gi * 4; ci < gi * 4 + 4; ++ci)
      for (int64_t k = 0; k < 4; ++k) m = std::max(m, double(std::fabs(w.data<float>()[(ci * 3 + j) * 4 + k])));
    EXPECT_EQ(exact[size_t(o)], m) << "output channel " << o;
  }
  QuantizeReport report;
  const Graph q = quantize_graph(single_op("ConvTranspose", {1, 8, 4, 4}, w, {{"group", Attribute::of_int(2)}}),
                                 table_for({{"x", 2.0}}), {}, {}, report);
  const WeightDq dq = weight_dq(q);
  ASSERT_EQ(dq.axis, 1);
  ASSERT_EQ(dq.scales.size(), 3u);  // ONNX's axis 1 holds C_out/g
  for (size_t j = 0; j < 3; ++j) EXPECT_EQ(dq.scales[j], float(std::max(exact[j], exact[j + 3]) / 127.0));
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_NE(report.warnings[0].find("max over groups"), std::string::npos);
}

TEST(Quantize, GemmTransBAndMatMulQuantizeToTheSameInt8) {
  const Tensor w_nk = random_tensor({10, 32}, 5);  // Gemm transB=1: W[N, K]
  Tensor w_kn(DType::Float32, {32, 10});           // MatMul: Wᵀ[K, N]
  for (int64_t n = 0; n < 10; ++n)
    for (int64_t k = 0; k < 32; ++k) w_kn.data<float>()[k * 10 + n] = w_nk.data<float>()[n * 32 + k];
  const RangeTable table = table_for({{"x", 1.0}, {"y", 4.0}});
  QuantizeReport r1, r2;
  const Graph gemm = quantize_graph(single_op("Gemm", {4, 32}, w_nk, {{"transB", Attribute::of_int(1)}}), table, {}, {}, r1);
  const Graph matmul = quantize_graph(single_op("MatMul", {4, 32}, w_kn, {}), table, {}, {}, r2);
  const WeightDq a = weight_dq(gemm), b = weight_dq(matmul);
  EXPECT_EQ(a.axis, 0);
  EXPECT_EQ(b.axis, 1);
  EXPECT_EQ(a.scales, b.scales);  // the same per-output-channel scales
  for (int64_t n = 0; n < 10; ++n)
    for (int64_t k = 0; k < 32; ++k) ASSERT_EQ(a.q.data<int8_t>()[n * 32 + k], b.q.data<int8_t>()[k * 10 + n]);
  // Their outputs, quantized with the output's scale, are the same INT8 codes.
  const Tensor x = random_tensor({4, 32}, 6);
  const Tensor ya = Executor(gemm).run({{"x", x}}).at("y"), yb = Executor(matmul).run({{"x", x}}).at("y");
  const float s = float(4.0 / 127.0);
  for (int64_t i = 0; i < ya.numel(); ++i)
    ASSERT_EQ(std::nearbyint(ya.data<float>()[i] / s), std::nearbyint(yb.data<float>()[i] / s)) << "element " << i;
}

TEST(Quantize, UpgradesOldOpsetsForPerAxisScales) {
  QuantizeReport report;
  const Graph q = quantize_graph(single_op("Conv", {1, 3, 5, 5}, random_tensor({4, 3, 3, 3}, 7), {}, 11),
                                 table_for({{"x", 1.0}}), {}, {}, report);
  EXPECT_EQ(report.opset_from, 11);
  EXPECT_EQ(q.opset(), 13);
  save_model(q, testing::TempDir() + "upgraded.qdq.onnx");
}

TEST(Quantize, ErrorsNameMissingRangesAndUnknownExclusions) {
  QuantizeReport report;
  const Graph g = single_op("Conv", {1, 3, 5, 5}, random_tensor({4, 3, 3, 3}, 7), {});
  try {
    quantize_graph(g, RangeTable{}, {}, {}, report);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "the calibration table has no range for 1 tensors the rules quantize: 'x'");
  }
  try {
    quantize_graph(g, table_for({{"x", 1.0}}), {}, {"conv_7"}, report);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "--exclude conv_7: no node or op type of that name in the model");
  }
  QuantizeReport kept;
  const Graph q = quantize_graph(g, table_for({{"x", 1.0}}), {}, {"Conv"}, kept);
  ASSERT_EQ(kept.fp32.size(), 1u);
  EXPECT_EQ(kept.fp32[0].second, "excluded");
}

// Shape arithmetic (Shape → Gather → Add of int64) beside a float Add: only the float Add is
// quantized, and the table needs no range for the integer values (calibration never sees them).
TEST(Quantize, IntegerAddsStayUnquantized) {
  Graph g;
  g.opsets = {{"", 13}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{Dim{2, ""}, Dim{3, ""}}}};
  g.outputs = {{"z", DType::Float32, std::nullopt}, {"n", DType::Undefined, std::nullopt}};
  Tensor zero(DType::Int64, Dims{});
  zero.data<int64_t>()[0] = 0;
  g.initializers["zero"] = zero;
  g.initializers["one"] = zero;
  g.initializers["one"].data<int64_t>()[0] = 1;
  g.initializers["b"] = random_tensor({3}, 5);
  auto node = [&](const char* op, std::vector<std::string> in, const char* out) {
    Node n;
    n.op_type = op, n.name = out, n.inputs = std::move(in), n.outputs = {out};
    g.nodes.push_back(n);
  };
  node("Shape", {"x"}, "s");
  node("Gather", {"s", "zero"}, "d0");
  node("Add", {"d0", "one"}, "n");
  node("Relu", {"x"}, "r");
  node("Add", {"r", "x"}, "y");
  g.initializers["w"] = random_tensor({3, 3}, 6);
  node("MatMul", {"y", "w"}, "z");  // reads the float sum in INT8, so the float Add is quantized
  QuantizeReport report;
  const Graph q = quantize_graph(g, table_for({{"x", 1.0}, {"r", 1.0}, {"y", 2.0}}), {}, {}, report);
  EXPECT_EQ(report.quantized, std::vector<std::string>({"y", "z"}));
}

// An Add whose sum no quantized op reads (a transformer's residual before LayerNorm) stays FP32.
TEST(Quantize, AnAddWhoseSumFeedsNoQuantizedOpStaysFp32) {
  Graph g;
  g.opsets = {{"", 13}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{Dim{2, ""}, Dim{3, ""}}}};
  g.outputs = {{"y", DType::Float32, std::nullopt}};
  g.initializers["s"] = random_tensor({3}, 7);
  g.initializers["b"] = random_tensor({3}, 8);
  auto node = [&](const char* op, std::vector<std::string> in, const char* out) {
    Node n;
    n.op_type = op, n.name = out, n.inputs = std::move(in), n.outputs = {out};
    g.nodes.push_back(n);
  };
  node("Relu", {"x"}, "r");
  node("Add", {"r", "x"}, "sum");
  node("LayerNormalization", {"sum", "s", "b"}, "y");
  QuantizeReport report;
  const Graph q = quantize_graph(g, table_for({{"x", 1.0}, {"r", 1.0}, {"sum", 2.0}}), {}, {}, report);
  EXPECT_TRUE(report.quantized.empty());
  bool reasoned = false;
  for (const auto& [who, why] : report.fp32) reasoned = reasoned || (who == "sum" && why == "its sum feeds no quantized op");
  EXPECT_TRUE(reasoned);
}

// Attention's Q·Kᵀ: a MatMul of two activations stays FP32 (with the reason) unless --quantize-bmm.
TEST(Quantize, MatMulOfTwoActivationsNeedsQuantizeBmm) {
  Graph g;
  g.opsets = {{"", 13}};
  g.inputs = {{"a", DType::Float32, std::vector<Dim>{Dim{2, ""}, Dim{3, ""}}}, {"b", DType::Float32, std::vector<Dim>{Dim{3, ""}, Dim{4, ""}}}};
  g.outputs = {{"y", DType::Float32, std::nullopt}};
  Node n;
  n.op_type = "MatMul", n.name = "qk", n.inputs = {"a", "b"}, n.outputs = {"y"};
  g.nodes.push_back(n);
  const RangeTable table = table_for({{"a", 1.0}, {"b", 1.0}});
  QuantizeReport fp32_report, bmm_report;
  quantize_graph(g, table, {}, {}, fp32_report);
  EXPECT_TRUE(fp32_report.quantized.empty());
  ASSERT_EQ(fp32_report.fp32.size(), 1u);
  EXPECT_EQ(fp32_report.fp32[0].second, kBmmReason);
  QuantOptions bmm;
  bmm.quantize_bmm = true;
  quantize_graph(g, table, bmm, {}, bmm_report);
  EXPECT_EQ(bmm_report.quantized, std::vector<std::string>{"qk"});
  EXPECT_EQ(bmm_report.activation_qdq, 2u);
}

}  // namespace
}  // namespace q8
