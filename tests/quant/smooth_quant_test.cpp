// SmoothQuant (docs/quantization.md): the smoothed FP32 graph computes what the original does, the
// factors follow s_j = a_j^α / w_j^(1−α) from the table's per-channel maxima and the weights, they
// are folded into a LayerNormalization, into a decomposed LayerNorm's Mul and Add, or applied by
// a Mul where the activation has other readers, and the smoothed activation's range is
// max_j a_j / s_j.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/exec/executor.h"
#include "quant/smooth_quant.h"
#include "tests/ops/op_harness.h"

namespace q8 {
namespace {

Node node(const char* op, std::vector<std::string> in, std::string out, std::map<std::string, Attribute> attrs = {}) {
  Node n;
  n.op_type = op, n.name = out, n.inputs = std::move(in), n.outputs = {std::move(out)}, n.attributes = std::move(attrs);
  return n;
}

// x[B, T, K] with a few outlier channels → LayerNormalization → q, k (MatMul), and the LN output alone read by them;
// x → Mul(γ) → Add(β) → MatMul v; Relu(x) → MatMul r, and Relu(x) also an output (not alone).
Graph model(int64_t k) {
  Graph g;
  g.opsets = {{"", 17}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{Dim{2, ""}, Dim{5, ""}, Dim{k, ""}}}};
  g.initializers["gamma"] = random_tensor({k}, 1, 0.5f, 1.5f);
  g.initializers["beta"] = random_tensor({k}, 2);
  g.initializers["g2"] = random_tensor({k}, 3, 0.5f, 1.5f);
  g.initializers["b2"] = random_tensor({k}, 4);
  for (int i = 0; i < 4; ++i) g.initializers["w" + std::to_string(i)] = random_tensor({k, 6}, 10 + uint64_t(i));
  g.nodes = {node("LayerNormalization", {"x", "gamma", "beta"}, "ln", {{"axis", Attribute::of_int(-1)}}),
             node("MatMul", {"ln", "w0"}, "q"),
             node("MatMul", {"ln", "w1"}, "kk"),
             node("Mul", {"x", "g2"}, "scaled"),
             node("Add", {"scaled", "b2"}, "affine"),
             node("MatMul", {"affine", "w2"}, "v"),
             node("Relu", {"x"}, "relu"),
             node("MatMul", {"relu", "w3"}, "r")};
  for (const char* out : {"q", "kk", "v", "r", "relu"}) g.outputs.push_back({out, DType::Float32, std::nullopt});
  return g;
}

TEST(SmoothQuant, TheSmoothedGraphComputesTheSameAndTheRangesFollowTheFactors) {
  const int64_t k = 8;
  Graph g = model(k);
  Tensor x = random_tensor({2, 5, k}, 7);
  for (int64_t i = 0; i < x.numel(); i += k) x.data<float>()[i + 3] *= 40.0f;  // an outlier channel
  // The table's per-channel maxima, measured on x as calibration does.
  RangeTable table;
  Executor probe(g);
  std::map<std::string, Tensor> seen;
  probe.set_hook([&](const Node& n, size_t, const std::vector<Tensor>& outs) { seen[n.outputs[0]] = outs[0].clone(); });
  const TensorMap want = probe.run({{"x", x}});
  for (const char* v : {"ln", "affine", "relu"}) {
    TensorRange r;
    r.channel_amax.assign(size_t(k), 0.0);
    for (int64_t i = 0; i < seen.at(v).numel(); ++i)
      r.channel_amax[size_t(i % k)] = std::max(r.channel_amax[size_t(i % k)], double(std::fabs(seen.at(v).data<float>()[i])));
    table.activations[v] = r;
  }
  const double alpha = 0.5;
  const Graph original = g;
  const SmoothQuantReport report = smooth_quant(g, table, alpha);
  ASSERT_EQ(report.smoothed.size(), 3u);
  EXPECT_NE(report.smoothed[0].find("into LayerNormalization"), std::string::npos) << report.smoothed[0];
  EXPECT_NE(report.smoothed[1].find("into the LayerNorm affine"), std::string::npos) << report.smoothed[1];
  EXPECT_NE(report.smoothed[2].find("by a Mul"), std::string::npos) << report.smoothed[2];
  // The same outputs, within rounding.
  const TensorMap got = Executor(g).run({{"x", x}});
  for (const auto& [name, w] : want) {
    const Tensor& t = got.at(name);
    float largest = 0;
    for (float v : w.values<float>()) largest = std::max(largest, std::fabs(v));
    for (int64_t i = 0; i < w.numel(); ++i) ASSERT_NEAR(t.data<float>()[i], w.data<float>()[i], 1e-4f * largest) << name << " at " << i;
  }
  // The factors and ranges as documented: LN's group (w0, w1).
  std::vector<double> wmax(size_t(k), 0.0);
  for (const char* w : {"w0", "w1"}) {
    const Tensor& t = original.initializers.at(w);
    for (int64_t i = 0; i < t.numel(); ++i) wmax[size_t(i / 6)] = std::max(wmax[size_t(i / 6)], double(std::fabs(t.data<float>()[i])));
  }
  double amax = 0;
  const std::vector<double>& a = table.activations.at("ln").channel_amax;  // now a_j / s_j
  for (int64_t j = 0; j < k; ++j) {
    double aj = 0;
    for (int64_t i = j; i < seen.at("ln").numel(); i += k) aj = std::max(aj, double(std::fabs(seen.at("ln").data<float>()[i])));
    const double s = std::clamp(std::pow(aj, alpha) / std::pow(wmax[size_t(j)], 1 - alpha), 1e-5, 1e5);
    EXPECT_NEAR(a[size_t(j)], aj / s, 1e-9 * (1 + aj / s)) << "channel " << j;
    amax = std::max(amax, aj / s);
    const Node& mm = g.nodes[1];
    EXPECT_NEAR(g.constant(mm.inputs[1])->data<float>()[j * 6], original.initializers.at("w0").data<float>()[j * 6] * s,
                1e-6 * (1 + std::fabs(original.initializers.at("w0").data<float>()[j * 6] * s)));
  }
  EXPECT_DOUBLE_EQ(table.activations.at("ln").descriptor.amax[0], amax);
  // The outlier is tamed: the spread of the channel maxima (largest over smallest) narrows.
  std::vector<double> before(size_t(k), 0.0);
  for (int64_t i = 0; i < seen.at("affine").numel(); ++i)
    before[size_t(i % k)] = std::max(before[size_t(i % k)], double(std::fabs(seen.at("affine").data<float>()[i])));
  auto spread = [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()) / *std::min_element(v.begin(), v.end()); };
  EXPECT_LT(spread(table.activations.at("affine").channel_amax), spread(before) / 2);
  // The Mul case: a new tensor with its own range; relu keeps its own.
  bool mul = false;
  for (const Node& n : g.nodes) mul = mul || (n.op_type == "Mul" && n.inputs[0] == "relu");
  EXPECT_TRUE(mul);
  EXPECT_TRUE(table.activations.count("relu_smoothed"));
}

TEST(SmoothQuant, WithoutPerChannelMaximaNothingIsSmoothed) {
  Graph g = model(4);
  RangeTable table;
  table.activations["ln"].descriptor.amax = {1.0};
  const SmoothQuantReport report = smooth_quant(g, table, 0.5);
  EXPECT_TRUE(report.smoothed.empty());
  EXPECT_EQ(report.skipped.size(), 3u);
  EXPECT_THROW(smooth_quant(g, table, 1.5), Error);
}

}  // namespace
}  // namespace q8
