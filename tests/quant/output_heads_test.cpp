// Output heads kept FP32 where cheap (docs/quantization.md, "Output heads stay FP32 where that is
// cheap"; quant/output_heads.h): a 1-channel head behind a residual Add reads its input in float
// with float weights; a head fed by a quantized conv through a Relu, a head past the 1 % shares,
// a head with a weighted op after it, and --quantize-heads stay quantized; without the values a
// sample the table saw, nothing is decided.
#include <gtest/gtest.h>

#include <algorithm>

#include "quant/materialize.h"
#include "tests/ops/op_harness.h"

namespace q8 {
namespace {

Node conv(const std::string& name, const std::string& x, const std::string& w, const std::string& y, int64_t pad) {
  Node n;
  n.op_type = "Conv", n.name = name, n.inputs = {x, w}, n.outputs = {y};
  n.attributes["pads"] = Attribute::of_ints({pad, pad, pad, pad});
  return n;
}

Node op(const std::string& type, std::vector<std::string> in, const std::string& y) {
  Node n;
  n.op_type = type, n.name = type + "_" + y, n.inputs = std::move(in), n.outputs = {y};
  return n;
}

struct Net {
  int64_t head_out = 1;    // the head's output channels (1 × 1 over 64)
  bool head_reads_relu = false;  // the head reads Relu(conv b) instead of the residual sum
  bool conv_after_head = false;  // a 1 × 1 conv reads the head's Sigmoid
};

// x [1, 8, 16, 16] → a (8 → 64, 3 × 3) → Relu → b (64 → 64, 3 × 3) → Add(b, Relu) → head → Sigmoid → y
Graph net(const Net& n) {
  Graph g;
  g.opsets = {{"", 13}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{Dim{1, ""}, Dim{8, ""}, Dim{16, ""}, Dim{16, ""}}}};
  g.outputs = {{"y", DType::Float32, std::nullopt}};
  g.initializers["wa"] = random_tensor({64, 8, 3, 3}, 1);
  g.initializers["wb"] = random_tensor({64, 64, 3, 3}, 2);
  g.initializers["wh"] = random_tensor({n.head_out, 64, 1, 1}, 3);
  g.nodes = {conv("a", "x", "wa", "ya", 1), op("Relu", {"ya"}, "ra"), conv("b", "ra", "wb", "yb", 1), op("Relu", {"yb"}, "rb"),
             op("Add", {"rb", "ra"}, "sum"), conv("head", n.head_reads_relu ? "rb" : "sum", "wh", "logits", 0),
             op("Sigmoid", {"logits"}, n.conv_after_head ? "p" : "y")};
  if (n.conv_after_head) {
    g.initializers["wc"] = random_tensor({1, n.head_out, 1, 1}, 4);
    g.nodes.push_back(conv("c", "p", "wc", "y", 0));
  }
  return g;
}

// Ranges for every activation, and the values a sample each holds (one sample).
RangeTable table(bool with_counts) {
  RangeTable t;
  t.samples = with_counts ? 1 : 0;
  for (const auto& [name, values] : std::initializer_list<std::pair<const char*, uint64_t>>{
           {"x", 8 * 256}, {"ya", 64 * 256}, {"ra", 64 * 256}, {"yb", 64 * 256}, {"rb", 64 * 256}, {"sum", 64 * 256}, {"p", 256}}) {
    t.activations[name].descriptor.amax = {2.0};
    t.activations[name].stats.elements = with_counts ? values : 0;
  }
  return t;
}

// Whether node `name` of the QDQ graph reads float (neither its input nor its weight dequantized).
bool reads_float(const Graph& q, const std::string& name) {
  for (const Node& n : q.nodes)
    if (n.name == name) {
      const bool dq_x = n.inputs[0].find("_dequantized") != std::string::npos;
      const bool dq_w = q.constant(n.inputs[1]) == nullptr;  // a DequantizeLinear's output, not the initializer
      return !dq_x && !dq_w;
    }
  throw Error("no node " + name);
}

std::string reason(const QuantizeReport& r, const std::string& name) {
  for (const auto& [node, why] : r.fp32)
    if (node == name) return why;
  return "";
}

TEST(OutputHeads, ACheapHeadBehindAResidualSumStaysFp32) {
  QuantizeReport r;
  const Graph q = quantize_graph(net({}), table(true), {}, {}, r);
  EXPECT_TRUE(reads_float(q, "head"));
  EXPECT_NE(reason(r, "head").find("an output head"), std::string::npos) << reason(r, "head");
  EXPECT_FALSE(reads_float(q, "a"));
  EXPECT_FALSE(reads_float(q, "b"));
}

TEST(OutputHeads, WhatKeepsAHeadQuantized) {
  const auto quantized = [](const Net& n, const QuantOptions& o, bool counts) {
    QuantizeReport r;
    return !reads_float(quantize_graph(net(n), table(counts), o, {}, r), "head");
  };
  QuantOptions always;
  always.quantize_heads = true;
  EXPECT_TRUE(quantized({}, always, true)) << "--quantize-heads";
  EXPECT_TRUE(quantized({1, true, false}, {}, true)) << "fed by conv b through a Relu: b would write float";
  EXPECT_TRUE(quantized({64, false, false}, {}, true)) << "64 output channels: 4096 weights, past 1 % of them";
  EXPECT_TRUE(quantized({1, false, true}, {}, true)) << "a conv after it: not the output's last weighted op";
  EXPECT_TRUE(quantized({}, {}, false)) << "no values a sample in the table: no estimate of the arithmetic";
}

}  // namespace
}  // namespace q8
