// A float Mul and the QuantizeLinear that alone reads it lower to one MulQuantize
// (docs/quantization.md, "A float Mul and its Q"): a squeeze-excitation gate's bytes are the QDQ
// graph's own, NaN, ±inf and saturation included; a Mul read by anything else stays FP32.
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

// x [2, 8, 5, 5] · g [2, 8, 1, 1] → Q → DQ → y; with `also_read`, the product is a graph output too.
Graph gate_graph(bool also_read) {
  Graph g;
  g.opsets = {{"", 17}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{Dim{2, ""}, Dim{8, ""}, Dim{5, ""}, Dim{5, ""}}},
              {"g", DType::Float32, std::vector<Dim>{Dim{2, ""}, Dim{8, ""}, Dim{1, ""}, Dim{1, ""}}}};
  g.outputs = {{"y", DType::Float32, std::nullopt}};
  if (also_read) g.outputs.push_back({"gated", DType::Float32, std::nullopt});
  g.initializers["s"] = Tensor::scalar<float>(0.021f);
  g.initializers["zp"] = Tensor::scalar<int8_t>(0);
  g.nodes = {node("Mul", "gate", {"x", "g"}, {"gated"}), node("QuantizeLinear", "q", {"gated", "s", "zp"}, {"gq"}),
             node("DequantizeLinear", "dq", {"gq", "s", "zp"}, {"y"})};
  return g;
}

int count(const Graph& g, const std::string& op_type) {
  int n = 0;
  for (const Node& node : g.nodes) n += node.op_type == op_type;
  return n;
}

TEST(MulQuantize, AGateAndItsQLowerToOneOpWithTheGraphsBytes) {
  const Graph qdq = gate_graph(false);
  const Lowered l = lower_qdq(qdq);
  EXPECT_EQ(count(l.graph, "MulQuantize"), 1);
  EXPECT_EQ(count(l.graph, "Mul"), 0);
  EXPECT_EQ(count(l.graph, "QuantizeLinear"), 0);
  std::mt19937 rng(3);
  std::normal_distribution<float> v(0.0f, 2.0f);
  Tensor x(DType::Float32, {2, 8, 5, 5}), g(DType::Float32, {2, 8, 1, 1});
  for (float& e : x.values<float>()) e = v(rng);
  for (float& e : g.values<float>()) e = 1.0f / (1.0f + std::exp(-v(rng)));
  x.data<float>()[0] = NAN, x.data<float>()[1] = INFINITY, x.data<float>()[2] = -INFINITY, x.data<float>()[3] = -0.0f;
  x.data<float>()[4] = 1e30f;  // saturates
  const Tensor want = Executor(qdq).run({{"x", x}, {"g", g}}).at("y");
  const Tensor got = Executor(l.graph, {&int8_reference_backend(), &cpu_backend()}).run({{"x", x}, {"g", g}}).at("y");
  ASSERT_EQ(got.numel(), want.numel());
  for (int64_t i = 0; i < got.numel(); ++i) ASSERT_EQ(got.data<float>()[i], want.data<float>()[i]) << i;
}

TEST(MulQuantize, AMulAnythingElseReadsStaysFp32) {
  const Lowered l = lower_qdq(gate_graph(true));
  EXPECT_EQ(count(l.graph, "MulQuantize"), 0);
  EXPECT_EQ(count(l.graph, "Mul"), 1);
}

}  // namespace
}  // namespace q8
