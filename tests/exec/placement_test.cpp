// Placement: each node on the first backend that supports it, with the reasons of those that
// declined; host↔device copies where placement changes memory, once per value and memory. The
// device here is a test backend whose memory holds every byte XOR 0x5A, so a value that crossed
// without a copy reads as garbage and the results show it.
#include <gtest/gtest.h>

#include "engine/exec/executor.h"
#include "engine/plan/reference/backend.h"

namespace q8 {
namespace {

Tensor scrambled(const Tensor& t) {
  Tensor out = t.clone();
  for (size_t i = 0; i < out.nbytes(); ++i) out.raw()[i] ^= std::byte{0x5A};
  return out;
}

// Runs Neg on float32 in its own memory.
class MirrorBackend final : public Backend {
 public:
  std::string_view name() const override { return "mirror"; }
  std::vector<OpKey> op_types() const override { return {{"", "Neg"}}; }
  std::string_view memory() const override { return "mirror-memory"; }
  Support supports(const NodeView& v) const override {
    if (v.node.op_type != "Neg" || !v.node.domain.empty()) return Support::no();
    return v.input_type(0) == DType::Float32 ? Support::yes() : Support::no("runs float32 only");
  }
  std::unique_ptr<PreparedNode> create(const NodeView&) const override { return std::make_unique<MirrorNeg>(); }
  Tensor upload(const Tensor& host) const override { return scrambled(host); }
  Tensor download(const Tensor& on_device) const override {
    ++downloads;
    return scrambled(on_device);
  }
  mutable int downloads = 0;

 private:
  class MirrorNeg final : public PreparedNode {
   public:
    Reshaped reshape(const std::vector<TensorDesc>& in) override { return {{in.at(0)}, 0}; }
    void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
      EXPECT_TRUE(out[0].empty()) << "the executor allocates host buffers only";
      Tensor x = scrambled(*in[0]);
      for (float& v : x.values<float>()) v = -v;
      out[0] = scrambled(x);
    }
  };
};

const MirrorBackend kMirror;

Node make_node(const std::string& op, const std::string& name, std::vector<std::string> in, std::vector<std::string> out) {
  Node n;
  n.op_type = op, n.name = name, n.inputs = std::move(in), n.outputs = std::move(out);
  return n;
}

// a = Relu(x) (cpu); b = Neg(a), c = Neg(a) (mirror); d = Add(b, c) (cpu); e = Neg(d) (mirror).
// Outputs d (host) and e (mirror).
Graph mixed_graph() {
  Graph g;
  g.opsets = {{"", 13}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{{2, ""}, {3, ""}}}};
  g.nodes = {make_node("Relu", "relu", {"x"}, {"a"}), make_node("Neg", "neg_b", {"a"}, {"b"}), make_node("Neg", "neg_c", {"a"}, {"c"}),
             make_node("Add", "add", {"b", "c"}, {"d"}), make_node("Neg", "neg_e", {"d"}, {"e"})};
  g.outputs = {{"d", DType::Float32, std::nullopt}, {"e", DType::Float32, std::nullopt}};
  return g;
}

TEST(Placement, ValuesCrossMemoriesThroughCopiesOncePerValue) {
  Executor exec(mixed_graph(), {&kMirror, &cpu_backend()});
  EXPECT_EQ(exec.placement(), (std::vector<std::string_view>{"cpu", "mirror", "mirror", "cpu", "mirror"}));
  std::vector<float> hooked_b;
  exec.set_hook([&](const Node& n, size_t, const std::vector<Tensor>& out) {
    if (n.name == "neg_b") hooked_b.assign(out[0].values<float>().begin(), out[0].values<float>().end());
  });
  const Tensor x = Tensor::from_vector<float>({2, 3}, {-1.5f, 2.0f, 0.25f, 3.0f, -0.5f, 7.0f});
  for (int run = 0; run < 2; ++run) {
    const TensorMap out = exec.run({{"x", x}});
    for (int64_t i = 0; i < 6; ++i) {
      const float a = std::max(0.0f, x.data<float>()[i]);
      EXPECT_EQ(out.at("d").data<float>()[i], -2.0f * a) << i;
      EXPECT_EQ(out.at("e").data<float>()[i], 2.0f * a) << i;
      EXPECT_EQ(hooked_b.at(size_t(i)), -a) << "the hook sees host values";
    }
    // a up once for both Negs; b and c down for Add; d up for neg_e; e down as a graph output.
    EXPECT_EQ(exec.copies(), 5u);
  }
}

// A hook that only times nodes (outputs_on_host false) costs no download; one that reads outputs
// gets each device node's outputs downloaded.
TEST(Placement, ATimingHookDownloadsNothing) {
  const Tensor x = Tensor::from_vector<float>({2, 3}, {-1.5f, 2.0f, 0.25f, 3.0f, -0.5f, 7.0f});
  const auto downloads_per_run = [&](int hook) {  // 0: none, 1: a timer, 2: reads outputs
    const MirrorBackend mirror;
    Executor exec(mixed_graph(), {&mirror, &cpu_backend()});
    int calls = 0;
    size_t outputs_seen = 0;
    if (hook) {
      exec.set_hook(
          [&](const Node&, size_t, const std::vector<Tensor>& out) {
            ++calls;
            outputs_seen += out.size();
          },
          hook == 2);
    }
    exec.run({{"x", x}});
    EXPECT_EQ(calls, hook ? 5 : 0);
    if (hook == 1) {
      EXPECT_EQ(outputs_seen, 2u) << "the two host nodes' outputs only";
    }
    return mirror.downloads;
  };
  const int plain = downloads_per_run(0);
  EXPECT_EQ(downloads_per_run(1), plain);
  EXPECT_EQ(downloads_per_run(2), plain + 3) << "b, c and e downloaded for the hook";
}

TEST(Placement, AShapeOfADeviceValueCopiesNothing) {
  Graph g;
  g.opsets = {{"", 13}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{{2, ""}, {3, ""}}}};
  // b = Neg(x) (mirror); s = Shape(b) (cpu); e = Neg(b) (mirror). Outputs s and e.
  g.nodes = {make_node("Neg", "neg_b", {"x"}, {"b"}), make_node("Shape", "shape", {"b"}, {"s"}), make_node("Neg", "neg_e", {"b"}, {"e"})};
  g.outputs = {{"s", DType::Int64, std::nullopt}, {"e", DType::Float32, std::nullopt}};
  Executor exec(g, {&kMirror, &cpu_backend()});
  const TensorMap out = exec.run({{"x", Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6})}});
  EXPECT_EQ(out.at("s").values<int64_t>()[0], 2);
  EXPECT_EQ(out.at("s").values<int64_t>()[1], 3);
  EXPECT_EQ(out.at("e").data<float>()[5], 6.0f);
  // x up, e down: b never comes down for the Shape, which reads its dims only.
  EXPECT_EQ(exec.copies(), 2u);
}

TEST(Placement, TheReportGivesEachNodesBackendAndWhyOthersDeclined) {
  Graph g = mixed_graph();
  g.inputs[0].dtype = DType::Int32;  // the mirror runs float32 only: every Neg falls back to the cpu
  for (ValueInfo& o : g.outputs) o.dtype = DType::Int32;
  g.nodes.erase(g.nodes.begin());    // no Relu: Neg reads x directly
  g.nodes[0].inputs = g.nodes[1].inputs = {"x"};
  Executor exec(g, {&kMirror, &cpu_backend()});
  EXPECT_EQ(exec.placement(), (std::vector<std::string_view>{"cpu", "cpu", "cpu", "cpu"}));
  const std::string report = exec.placement_report();
  // int32 values: work on indices, which the report says of the nodes a device left on the host.
  EXPECT_NE(report.find("0 Neg 'neg_b' → cpu, on shapes, indices or masks (mirror: runs float32 only)"), std::string::npos) << report;
  EXPECT_NE(report.find("2 Add 'add' → cpu\n"), std::string::npos) << report;
}

// Shape work (Executor::shape_work) is told apart from a float activation a device left on the CPU:
// a Shape, a Cast of it to float and an op on that float are shape work; an Abs of the input is not.
TEST(Placement, TheSummaryCountsShapeWorkApartFromActivations) {
  Graph g;
  g.opsets = {{"", 13}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{{2, ""}, {3, ""}}}};
  g.nodes = {make_node("Shape", "shape", {"x"}, {"s"}), make_node("Cast", "cast", {"s"}, {"f"}), make_node("Neg", "neg_f", {"f"}, {"nf"}),
             make_node("Abs", "abs_x", {"x"}, {"a"})};
  g.nodes[1].attributes["to"] = Attribute::of_int(1);
  g.outputs = {{"nf", DType::Float32, std::nullopt}, {"a", DType::Float32, std::nullopt}};
  Executor exec(g, {&kMirror, &cpu_backend()});
  EXPECT_EQ(exec.shape_work(), (std::vector<bool>{true, true, true, false}));
  const std::string summary = placement_summary(exec.placement(), exec.shape_work());
  EXPECT_NE(summary.find("cpu 3 nodes (2 on shapes, indices or masks)"), std::string::npos) << summary;
}

TEST(Placement, UnsupportedNodesAreListedWithTheReasonsBackendsGave) {
  Graph g;
  g.opsets = {{"", 13}, {kInt8Domain, 1}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{{1, ""}, {4, ""}}}};
  g.initializers["w"] = Tensor(DType::Int8, {4, 4});
  g.initializers["b"] = Tensor(DType::Int32, {4});
  g.initializers["m"] = Tensor::from_vector<float>({4}, {1, 1, 1, 1});
  Node gemm = make_node("QGemm", "qg", {"x", "w", "b", "m"}, {"y"});
  gemm.domain = kInt8Domain;
  g.nodes = {gemm, make_node("Unique", "t1", {"y"}, {"k"})};
  g.outputs = {{"k", DType::Float32, std::nullopt}};
  EXPECT_EQ(unsupported_ops(g, {&int8_reference_backend(), &cpu_backend()}),
            "Unique ('t1'), q8.QGemm ('qg': int8-reference: x is float32, not int8)");
  g.inputs[0].dtype = DType::Int8;
  g.initializers.erase("w");
  g.inputs.push_back({"w", DType::Int8, std::nullopt});
  EXPECT_EQ(unsupported_ops(g, {&int8_reference_backend(), &cpu_backend()}),
            "Unique ('t1'), q8.QGemm ('qg': int8-reference: w is not a constant int8 tensor)");
}

}  // namespace
}  // namespace q8
