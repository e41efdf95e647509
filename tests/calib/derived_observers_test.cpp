// Tensors taken from another's observer instead of being scanned (docs/calibration.md, "Relu
// outputs and reshaped tensors") against observing the same values directly: statistics and every
// bin, through the calibrator and the executor's own ops, with NaN, ±Inf, -0, subnormals, zeros,
// batches of one sign, a first batch of zeros only, ranges that grow on either side (both scan
// paths), and with and without --skip-zeros. Named ObserverScan.* so CTest also runs it with the
// scalar scan.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "calib/calibrator.h"

namespace q8 {
namespace {

Node node(const std::string& op, const std::vector<std::string>& in, const std::string& out) {
  Node n;
  n.op_type = op, n.name = out, n.inputs = in, n.outputs = {out};
  return n;
}

// Derived (never scanned): r = Relu(x), rr = Relu(r), r_again = Relu(x), xt = Transpose(x),
// rxt = Relu(xt), rf = Flatten(r), rn = Relu(nx), nxr = Reshape(nx), nxu = Unsqueeze(nx).
// Observed directly: x and nx = Neg(x) (the roots), and the copies *_copy = v · 1, which hold the
// same values (exactly: v · 1 = v for every float) through an op that derives nothing.
Graph derived_graph() {
  Graph g;
  g.opsets = {{"", 13}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{{-1, "N"}, {-1, "K"}}}};
  g.initializers["one"] = Tensor::from_vector<float>({}, {1.0f});
  g.initializers["flat"] = Tensor::from_vector<int64_t>({1}, {-1});
  g.initializers["axes"] = Tensor::from_vector<int64_t>({1}, {0});
  for (const auto& [op, in, out] : std::vector<std::tuple<std::string, std::vector<std::string>, std::string>>{
           {"Relu", {"x"}, "r"}, {"Mul", {"x", "one"}, "x_copy"}, {"Mul", {"r", "one"}, "r_copy"}, {"Relu", {"r"}, "rr"},
           {"Relu", {"x"}, "r_again"}, {"Transpose", {"x"}, "xt"}, {"Relu", {"xt"}, "rxt"}, {"Flatten", {"r"}, "rf"},
           {"Neg", {"x"}, "nx"}, {"Relu", {"nx"}, "rn"}, {"Mul", {"rn", "one"}, "rn_copy"}, {"Mul", {"nx", "one"}, "nx_copy"},
           {"Reshape", {"nx", "flat"}, "nxr"}, {"Unsqueeze", {"nx", "axes"}, "nxu"}})
    g.nodes.push_back(node(op, in, out));
  for (const char* out : {"x_copy", "r_copy", "rr", "r_again", "rxt", "rf", "rn_copy", "nx_copy", "nxr", "nxu"})
    g.outputs.push_back({out, DType::Float32, std::nullopt});
  return g;
}

// Batches of 2 × K values: [0] zeros only (no width yet); [1] small signed values, -0, a
// subnormal of each sign; [2] negatives only, far larger (the negative side's range grows);
// [3] positives only, larger still; [4] like [1] with NaN, +Inf and -Inf; [5] runs of zeros and
// values inside the range (the one pass); [6] signed values past both ranges (two passes).
std::vector<Tensor> batches(int64_t k) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<Tensor> out;
  for (int b = 0; b < 7; ++b) {
    std::vector<float> v(size_t(2 * k));
    for (size_t i = 0; i < v.size(); ++i) {
      const float z = normal(rng);
      switch (b) {
        case 0: v[i] = 0.0f; break;
        case 1: case 4: v[i] = 0.5f * z; break;
        case 2: v[i] = -std::fabs(40.0f * z); break;
        case 3: v[i] = std::fabs(900.0f * z); break;
        case 5: v[i] = i % 3 == 0 ? 0.0f : 30.0f * z; break;
        default: v[i] = 3000.0f * z; break;
      }
    }
    if (b == 1) v[3] = -0.0f, v[4] = std::numeric_limits<float>::denorm_min(), v[5] = -1e-40f;
    if (b == 4) v[7] = NAN, v[8] = INFINITY, v[9] = -INFINITY;
    out.push_back(Tensor::from_vector<float>({2, k}, v));
  }
  return out;
}

void expect_same(const TensorObserver& got, const TensorObserver& want, const std::string& what) {
  SCOPED_TRACE(what);
  const TensorStats &g = got.stats(), &w = want.stats();
  EXPECT_EQ(g.elements, w.elements);
  EXPECT_EQ(g.zeros, w.zeros);
  EXPECT_EQ(g.nan, w.nan);
  EXPECT_EQ(g.pos_inf, w.pos_inf);
  EXPECT_EQ(g.neg_inf, w.neg_inf);
  EXPECT_EQ(g.min, w.min);
  EXPECT_EQ(g.max, w.max);
  EXPECT_EQ(g.max_abs, w.max_abs);
  EXPECT_EQ(got.histogram().empty(), want.histogram().empty());
  EXPECT_EQ(got.histogram().exponent(), want.histogram().exponent());
  EXPECT_EQ(got.histogram().counts(), want.histogram().counts());
}

TEST(ObserverScan, DerivedTensorsEqualDirectObservers) {
  const Graph g = derived_graph();
  // 70,001 values per row: chunks of several sizes; more than the 16-value AVX-512 step.
  for (int64_t k : {int64_t(5), int64_t(70001)}) {
    for (bool skip_zeros : {false, true}) {
      SCOPED_TRACE("k " + std::to_string(k) + (skip_zeros ? ", --skip-zeros" : ""));
      Calibrator calibrator(g, {4096, skip_zeros, true});
      Executor exec(g);
      calibrator.attach(exec);
      for (const Tensor& x : batches(k)) {
        const TensorMap inputs{{"x", x}};
        calibrator.observe_inputs(inputs);
        exec.run(inputs);
      }
      calibrator.settle();
      const auto& obs = calibrator.observers();
      for (const char* name : {"x", "r", "rr", "r_again", "xt", "rxt", "rf", "nx", "rn", "nxr", "nxu", "x_copy", "r_copy",
                               "rn_copy", "nx_copy"})
        ASSERT_TRUE(obs.count(name)) << name;
      expect_same(obs.at("x"), obs.at("x_copy"), "x");
      expect_same(obs.at("r"), obs.at("r_copy"), "Relu(x)");
      expect_same(obs.at("rr"), obs.at("r_copy"), "Relu(Relu(x))");
      expect_same(obs.at("r_again"), obs.at("r_copy"), "a second Relu of x");
      expect_same(obs.at("xt"), obs.at("x_copy"), "Transpose(x)");
      expect_same(obs.at("rxt"), obs.at("r_copy"), "Relu(Transpose(x))");
      expect_same(obs.at("rf"), obs.at("r_copy"), "Flatten(Relu(x))");
      expect_same(obs.at("nx"), obs.at("nx_copy"), "-x");
      expect_same(obs.at("rn"), obs.at("rn_copy"), "Relu(-x)");
      expect_same(obs.at("nxr"), obs.at("nx_copy"), "Reshape(-x)");
      expect_same(obs.at("nxu"), obs.at("nx_copy"), "Unsqueeze(-x)");
      // The data reach both sides, NaN and ±Inf included, so the comparisons above mean something.
      EXPECT_GT(obs.at("r").stats().zeros, 0u);
      EXPECT_EQ(obs.at("r").stats().pos_inf, 1u);
      EXPECT_EQ(obs.at("x").stats().nan, 1u);
      EXPECT_EQ(obs.at("rn").stats().max, obs.at("nx").stats().max);
    }
  }
}

}  // namespace
}  // namespace q8
