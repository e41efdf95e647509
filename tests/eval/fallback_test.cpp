// The budget's search (eval/fallback.h) on a chain of four convolutions whose effect on the
// metric is given, not measured: the ranking orders them by their effect alone, bisection finds
// the shortest prefix when the metric is monotone in it, and a metric that is not sends the
// search on linearly, which finds a shorter prefix than bisection's answer.
#include <gtest/gtest.h>

#include <functional>

#include "engine/ir/graph_index.h"
#include "eval/fallback.h"
#include "tests/ops/op_harness.h"

namespace q8 {
namespace {

// x → c0 → c1 → c2 → c3 → y, 1×1 convolutions of 4 channels.
Graph chain() {
  Graph g;
  g.opsets = {{"", 13}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{{1, ""}, {4, ""}, {2, ""}, {2, ""}}}};
  std::string in = "x";
  for (int i = 0; i < 4; ++i) {
    const std::string w = "w" + std::to_string(i), out = i == 3 ? "y" : "a" + std::to_string(i);
    g.initializers[w] = random_tensor({4, 4, 1, 1}, uint64_t(i + 1));
    Node n;
    n.op_type = "Conv", n.name = "c" + std::to_string(i), n.inputs = {in, w}, n.outputs = {out};
    g.nodes.push_back(n);
    in = out;
  }
  g.outputs = {{"y", DType::Float32, std::nullopt}};
  return g;
}

RangeTable ranges() {
  RangeTable t;
  for (const char* name : {"x", "a0", "a1", "a2", "y"}) t.activations[name].descriptor.amax = {1.0};
  return t;
}

// The convolutions a QDQ model quantizes: those whose weight comes from a DequantizeLinear.
std::set<std::string> quantized(const Graph& qdq) {
  const GraphIndex index(qdq);
  std::set<std::string> out;
  for (const Node& n : qdq.nodes)
    if (n.op_type == "Conv" && index.producer_op(n.inputs[1]) == "DequantizeLinear") out.insert(n.name);
  return out;
}

// A report whose cosine is `cosine`, and the models asked for, in order.
struct FakeEvaluation {
  std::function<double(const std::set<std::string>&)> cosine_of;
  std::vector<std::set<std::string>> asked;
  AccuracyReport operator()(const Graph& qdq) {
    asked.push_back(quantized(qdq));
    AccuracyReport r;
    r.outputs.push_back({"y", cosine_of(asked.back()), 1});
    return r;
  }
};

// Each convolution costs its own share of cosine (c0 the most); `penalty` more when c2 and c3
// are quantized while c1 is not.
double additive(const std::set<std::string>& q, double penalty) {
  const std::map<std::string, double> cost = {{"c0", 0.4}, {"c1", 0.3}, {"c2", 0.2}, {"c3", 0.1}};
  double loss = 0;
  for (const std::string& n : q) loss += cost.at(n);
  if (q.count("c2") && q.count("c3") && !q.count("c1")) loss += penalty;
  return 1.0 - loss;
}

FallbackResult search(FakeEvaluation& fake, double budget) {
  return fit_budget(chain(), ranges(), {}, {}, Budget{"cosine", budget}, std::ref(fake));
}

TEST(Fallback, BisectionFindsTheShortestPrefixOfTheRanking) {
  FakeEvaluation fake{[](const std::set<std::string>& q) { return additive(q, 0); }, {}};
  const FallbackResult r = search(fake, 0.85);  // only c3 may stay quantized
  ASSERT_EQ(r.ranking.size(), 4u);
  EXPECT_EQ(r.ranking[0].node, "c0");
  EXPECT_EQ(r.ranking[3].node, "c3");
  EXPECT_TRUE(r.met);
  EXPECT_EQ(r.fp32_nodes, (std::vector<std::string>{"c0", "c1", "c2"}));
  EXPECT_EQ(r.search, "bisection");
  // The fully quantized model, the ranking's four, then prefixes 4, 2 and 3: never one twice.
  std::vector<size_t> tried;
  for (const FallbackTrial& t : r.trials) tried.push_back(t.fp32_nodes);
  EXPECT_EQ(tried, (std::vector<size_t>{0, 4, 2, 3}));
  EXPECT_EQ(fake.asked.size(), 1 + 4 + 3u);
  EXPECT_EQ(quantized(r.qdq), (std::set<std::string>{"c3"}));
}

TEST(Fallback, AMetricThatIsNotMonotoneIsSearchedLinearly) {
  // Prefix 2 (c2 and c3 quantized, c1 not) measures worse than the fully quantized model, and
  // prefix 1 meets the budget although bisection, which skips it, answers 3.
  FakeEvaluation fake{[](const std::set<std::string>& q) { return additive(q, 0.9); }, {}};
  const FallbackResult r = search(fake, 0.35);
  EXPECT_TRUE(r.met);
  EXPECT_EQ(r.fp32_nodes, (std::vector<std::string>{"c0"}));
  EXPECT_EQ(r.search.rfind("linear: the metric is not monotone", 0), 0u) << r.search;
  EXPECT_EQ(quantized(r.qdq), (std::set<std::string>{"c1", "c2", "c3"}));
}

TEST(Fallback, AnUnreachableBudgetKeepsTheClosestModel) {
  FakeEvaluation fake{[](const std::set<std::string>& q) { return additive(q, 0) - 0.5; }, {}};
  const FallbackResult r = search(fake, 0.9);
  EXPECT_FALSE(r.met);
  EXPECT_EQ(r.fp32_nodes.size(), 4u);  // every ranked node in FP32 comes closest
  EXPECT_EQ(r.trials.size(), 2u);      // the fully quantized model and prefix 4: nothing else can meet it
}

}  // namespace
}  // namespace q8
