// The layout pass on graphs of the INT8 engine (docs/cpu.md, "Channels-last INT8 chains"): chains
// of 2-D QConvs and QConvTransposes, with the int8 MaxPool and QAdd between them, run channels-last on the CPU INT8
// backend, with one Transpose where a chain starts and one where it ends, and every output byte is
// the one the graph without the pass gives on the integer reference (the oracle). The reference
// runs the rewritten graph too (its own channels_last loops), and gives the same bytes.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "calib/calibrate.h"
#include "engine/exec/executor.h"
#include "engine/onnx/import.h"
#include "engine/passes/optimize_for_inference.h"
#include "engine/plan/lower.h"
#include "engine/runtime/backends.h"
#include "quant/materialize.h"
#include "tests/cases/op_case.h"
#include "tests/ops/op_harness.h"

namespace q8 {
namespace {

int count(const Graph& g, const std::string& op_type, bool channels_last) {
  int n = 0;
  for (const Node& node : g.nodes) n += node.op_type == op_type && (node.attr_int("channels_last", 0) != 0) == channels_last;
  return n;
}

TensorMap run(const Graph& g, const std::string& device, const TensorMap& inputs) {
  Executor exec(g, backends_for(device));
  return exec.run(inputs);
}

// The outputs of the laid-out graph on the CPU and on the reference, beside the plain graph's on
// the reference, byte for byte.
void expect_same_bytes(const Graph& plain, const Graph& laid_out, const TensorMap& inputs) {
  const TensorMap want = run(plain, "cpu-reference", inputs);
  for (const std::string device : {"cpu", "cpu-reference"}) {
    const TensorMap got = run(laid_out, device, inputs);
    ASSERT_EQ(got.size(), want.size());
    for (const auto& [name, w] : want) {
      const Tensor& t = got.at(name);
      ASSERT_EQ(dims_to_string(t.dims()), dims_to_string(w.dims())) << device << ": " << name;
      EXPECT_EQ(std::memcmp(t.raw(), w.raw(), w.nbytes()), 0) << device << ": output " << name << " differs";
    }
  }
}

// The shipped model (Conv, BatchNormalization, Relu, MaxPool, a residual Add, ConvTranspose),
// calibrated on 16 images and lowered.
TEST(Int8Layout, ShippedModelsPlanRunsChannelsLastWithTheSameBytes) {
  const Graph g = load_model(Q8_SOURCE_DIR "/datasets/models/fashion_cnn.onnx");
  CalibrateOptions options;
  options.method = "max";
  options.stream.limit = 16;
  const RangeTable table = calibrate(g, "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz", options);
  QuantizeReport report;
  const Graph plain = lower_qdq(quantize_graph(g, table, {}, {}, report)).graph;
  Graph laid_out = plain;
  const InferenceOptimization r = optimize_for_inference(laid_out, GraphOptimizationLevel::All, true);
  EXPECT_TRUE(r.int8_graph);
  EXPECT_GE(count(laid_out, "QConv", true), 2);
  EXPECT_EQ(count(laid_out, "QConv", false), 0) << "every 2-D QConv of the chain runs channels-last";
  EXPECT_EQ(count(laid_out, "QConvTranspose", true), 1);
  EXPECT_LE(r.layout.transposes, 3) << r.layout.summary();
  EXPECT_NE(r.summary().find("for the CPU INT8 backend"), std::string::npos) << r.summary();
  // No layout pass for another device, nor at level "extended".
  Graph other = plain;
  EXPECT_EQ(optimize_for_inference(other, GraphOptimizationLevel::All, false).layout.channels_last_nodes, 0);
  EXPECT_EQ(optimize_for_inference(other, GraphOptimizationLevel::Extended, true).layout.channels_last_nodes, 0);
  EXPECT_EQ(count(other, "QConv", true), 0);
  expect_same_bytes(plain, laid_out, {{"input", random_tensor({3, 1, 28, 28}, 7, 0.0f, 1.0f)}});
}

Node node(const std::string& op, std::vector<std::string> in, const std::string& out, std::map<std::string, Attribute> attributes = {},
          const std::string& domain = kInt8Domain) {
  Node n = make_node(op, std::move(in), std::move(attributes), domain);
  n.outputs = {out};
  n.name = out;
  return n;
}

// x → QuantizeLinear → QConv a (3×3) → MaxPool → QConv b (1×1, a's pooled output as residual)
// → QAdd(b, pooled) → depthwise QConv c → QConv d (float out) → y: one channels-last region, its
// input and output transposed once each.
TEST(Int8Layout, QAddAndMaxPoolJoinTheChain) {
  std::mt19937 rng(11);
  Graph g;
  g.opsets = {{"", 17}, {kInt8Domain, 1}};
  g.inputs = {{"x", DType::Float32, std::nullopt}};
  g.outputs = {{"y", DType::Float32, std::nullopt}};
  const auto weighted = [&](const std::string& name, Dims w, bool float_out) {
    g.initializers["w_" + name] = random_int8(w, rng, -127, 127);
    Tensor bias(float_out ? DType::Float32 : DType::Int32, {w[0]}), scale(DType::Float32, {w[0]});
    for (int64_t c = 0; c < w[0]; ++c) {
      if (float_out) bias.data<float>()[c] = 0.01f * float(c);
      else bias.data<int32_t>()[c] = int32_t(rng() % 2001) - 1000;
      scale.data<float>()[c] = 0.0005f + 0.0001f * float(c % 7);
    }
    g.initializers["b_" + name] = bias;
    g.initializers["s_" + name] = scale;
  };
  weighted("a", {16, 3, 3, 3}, false);
  weighted("b", {16, 16, 1, 1}, false);
  weighted("c", {16, 1, 3, 3}, false);
  weighted("d", {8, 16, 1, 1}, true);
  Tensor xs(DType::Float32, {}), zp(DType::Int8, {});
  xs.data<float>()[0] = 0.02f;
  zp.data<int8_t>()[0] = 0;
  g.initializers["xs"] = xs, g.initializers["zp"] = zp;
  const Attribute pads = Attribute::of_ints({1, 1, 1, 1});
  g.nodes.push_back(node("QuantizeLinear", {"x", "xs", "zp"}, "xq", {}, ""));
  g.nodes.push_back(node("QConv", {"xq", "w_a", "b_a", "s_a"}, "a", {{"pads", pads}, {"lo", Attribute::of_int(0)}}));
  g.nodes.push_back(node("MaxPool", {"a"}, "p", {{"kernel_shape", Attribute::of_ints({2, 2})}, {"strides", Attribute::of_ints({2, 2})}}, ""));
  g.nodes.push_back(node("QConv", {"p", "w_b", "b_b", "s_b", "p"}, "b", {{"residual_scale", Attribute::of_float(0.7f)}}));
  g.nodes.push_back(node("QAdd", {"b", "p"}, "sum", {{"a_scale", Attribute::of_float(0.6f)}, {"b_scale", Attribute::of_float(0.45f)}}));
  g.nodes.push_back(node("QConv", {"sum", "w_c", "b_c", "s_c"}, "c", {{"pads", pads}, {"group", Attribute::of_int(16)}}));
  g.nodes.push_back(node("QConv", {"c", "w_d", "b_d", "s_d"}, "y"));
  Graph laid_out = g;
  const InferenceOptimization r = optimize_for_inference(laid_out, GraphOptimizationLevel::All, true);
  EXPECT_EQ(r.layout.channels_last_nodes, 6) << r.layout.summary();
  EXPECT_EQ(r.layout.transposes, 2) << r.layout.summary();
  EXPECT_EQ(count(laid_out, "QConv", true), 4);
  for (const Node& n : laid_out.nodes) {
    if (n.op_type == "MaxPool") {
      EXPECT_EQ(n.domain, "com.ms.internal.nhwc");
    }
  }
  // Odd sizes, a batch of 3: positions that fill no vector, samples split between the threads.
  expect_same_bytes(g, laid_out, {{"x", random_tensor({3, 3, 13, 10}, 3, -2.0f, 2.0f)}});
}

}  // namespace
}  // namespace q8
