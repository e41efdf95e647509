// The layout pass (engine/passes/channels_last_layout.h): which nodes run channels-last, where the
// Transposes go, and that the rewritten graph computes what the graph at level "extended" does,
// bit for bit: the same oneDNN primitives and the same pooling order see the same values in
// another order. The one exception is the tiling ConvTranspose, which becomes a GEMM (compared
// within rounding, and per sample independently of the batch).
#include "engine/passes/channels_last_layout.h"

#include <gtest/gtest.h>

#include <cstring>

#include "engine/exec/executor.h"
#include "engine/ops/channels_last.h"
#include "engine/passes/optimize_for_inference.h"
#include "tests/ops/op_harness.h"

namespace q8 {
namespace {

Node make(const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
          std::map<std::string, Attribute> attributes = {}) {
  Node n;
  n.op_type = op, n.name = out.at(0), n.inputs = std::move(in), n.outputs = std::move(out), n.attributes = std::move(attributes);
  return n;
}

Attribute ints(std::vector<int64_t> v) { return Attribute::of_ints(std::move(v)); }

// x [N, 4, H, W] → Conv "a" (→ 8 channels) → middle nodes (reading "a", writing "m" with
// `channels` channels) → Conv "y" (→ 6 channels).
Graph sandwich(std::vector<Node> middle, int64_t channels, std::map<std::string, Tensor> extra = {}) {
  Graph g;
  g.opsets = {{"", 17}};
  g.inputs = {{"x", DType::Float32, std::nullopt}};
  g.outputs = {{"y", DType::Float32, std::nullopt}};
  g.initializers["wa"] = random_tensor({8, 4, 3, 3}, 1, -0.5f, 0.5f);
  g.initializers["ba"] = random_tensor({8}, 2);
  g.initializers["wy"] = random_tensor({6, channels, 3, 3}, 3, -0.5f, 0.5f);
  for (auto& [name, t] : extra) g.initializers[name] = t;
  g.nodes.push_back(make("Conv", {"x", "wa", "ba"}, {"a"}, {{"pads", ints({1, 1, 1, 1})}}));
  for (Node& n : middle) g.nodes.push_back(std::move(n));
  g.nodes.push_back(make("Conv", {"m", "wy"}, {"y"}, {{"pads", ints({1, 1, 1, 1})}}));
  return g;
}

Tensor run(Graph g, std::optional<GraphOptimizationLevel> level, const Tensor& x) {
  if (level) optimize_for_inference(g, *level);
  Executor exec(std::move(g));
  return exec.run({{"x", x}}).at("y");
}

void expect_identical(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(dims_to_string(got.dims()), dims_to_string(want.dims()));
  for (int64_t i = 0; i < want.numel(); ++i)
    ASSERT_EQ(got.data<float>()[i], want.data<float>()[i]) << "first difference at flat index " << i;
}

struct Case {
  std::string name;
  std::function<Graph()> graph;
  bool exact = true;  // false: the tiling ConvTranspose's GEMM, compared within rounding
};

std::vector<Case> cases() {
  std::vector<Case> c;  // (an Add after a Conv becomes its FusedConv's Z, so the elementwise cases use Mul)
  auto pool = [&](const std::string& name, const std::string& op, std::map<std::string, Attribute> attrs) {
    c.push_back({name, [=] { return sandwich({make(op, {"a"}, {"m"}, attrs)}, 8); }});
  };
  pool("MaxPool3x3Stride2Pads", "MaxPool", {{"kernel_shape", ints({3, 3})}, {"strides", ints({2, 2})}, {"pads", ints({1, 1, 1, 1})}});
  pool("MaxPool2x2CeilMode", "MaxPool", {{"kernel_shape", ints({2, 2})}, {"strides", ints({2, 2})}, {"ceil_mode", Attribute::of_int(1)}});
  pool("MaxPoolDilated", "MaxPool", {{"kernel_shape", ints({3, 3})}, {"dilations", ints({2, 2})}, {"pads", ints({2, 1, 2, 1})}});
  pool("MaxPoolSamePad", "MaxPool", {{"kernel_shape", ints({3, 2})}, {"auto_pad", Attribute::of_string("SAME_UPPER")}});
  pool("AveragePoolExcludePad", "AveragePool", {{"kernel_shape", ints({3, 3})}, {"pads", ints({1, 1, 1, 1})}});
  pool("AveragePoolIncludePad", "AveragePool",
       {{"kernel_shape", ints({3, 3})}, {"pads", ints({1, 2, 1, 2})}, {"count_include_pad", Attribute::of_int(1)}});
  pool("AveragePoolCeil", "AveragePool", {{"kernel_shape", ints({2, 2})}, {"strides", ints({2, 2})}, {"ceil_mode", Attribute::of_int(1)}});
  pool("Relu", "Relu", {});
  pool("HardSwish", "HardSwish", {});
  pool("Sigmoid", "Sigmoid", {});
  c.push_back({"GlobalAveragePool", [] { return sandwich({make("GlobalAveragePool", {"a"}, {"m"})}, 8); }});
  c.push_back({"ClipWithBounds", [] {
                 return sandwich({make("Clip", {"a", "lo", "hi"}, {"m"})}, 8,
                                 {{"lo", Tensor::scalar<float>(-0.25f)}, {"hi", Tensor::scalar<float>(0.5f)}});
               }});
  c.push_back({"MulScalar", [] { return sandwich({make("Mul", {"a", "k"}, {"m"})}, 8, {{"k", Tensor::scalar<float>(0.75f)}}); }});
  c.push_back({"MulTwoRegionValues", [] {
                 return sandwich({make("Relu", {"a"}, {"r"}), make("Mul", {"a", "r"}, {"m"})}, 8);
               }});
  c.push_back({"ConcatChannels", [] {
                 return sandwich({make("Relu", {"a"}, {"r"}), make("Concat", {"a", "r"}, {"m"}, {{"axis", Attribute::of_int(1)}})}, 16);
               }});
  auto conv = [&](const std::string& name, Dims w, std::map<std::string, Attribute> attrs) {
    c.push_back({name, [=] {
                   return sandwich({make("Conv", {"a", "wm", "bm"}, {"m"}, attrs)}, w[0],
                                   {{"wm", random_tensor(w, 4, -0.5f, 0.5f)}, {"bm", random_tensor({w[0]}, 5)}});
                 }});
  };
  conv("ConvGrouped", {8, 4, 3, 3}, {{"group", Attribute::of_int(2)}, {"pads", ints({1, 1, 1, 1})}});
  conv("ConvDepthwise", {8, 1, 3, 3}, {{"group", Attribute::of_int(8)}, {"pads", ints({1, 1, 1, 1})}});
  conv("ConvStrided", {12, 8, 3, 3}, {{"strides", ints({2, 2})}, {"pads", ints({0, 1, 1, 0})}});
  conv("ConvDilated", {8, 8, 3, 3}, {{"dilations", ints({2, 2})}, {"pads", ints({2, 2, 2, 2})}});
  conv("ConvPointwise", {5, 8, 1, 1}, {});
  conv("ConvKernelLargerThanInput", {8, 8, 5, 5}, {{"pads", ints({2, 2, 2, 2})}});
  c.push_back({"FusedConvWithResidual", [] {
                 return sandwich({make("Conv", {"a", "wm"}, {"t"}, {{"pads", ints({1, 1, 1, 1})}}), make("Add", {"t", "a"}, {"s"}),
                                  make("Relu", {"s"}, {"m"})},
                                 8, {{"wm", random_tensor({8, 8, 3, 3}, 6, -0.5f, 0.5f)}});
               }});
  c.push_back({"ConvTransposeOverlapping", [] {
                 return sandwich({make("ConvTranspose", {"a", "wt", "bt"}, {"m"},
                                       {{"strides", ints({2, 2})}, {"pads", ints({1, 1, 1, 1})}, {"output_padding", ints({1, 1})}})},
                                 6, {{"wt", random_tensor({8, 6, 3, 3}, 7, -0.5f, 0.5f)}, {"bt", random_tensor({6}, 8)}});
               }});
  c.push_back({"ConvTransposeTiling",
               [] {
                 return sandwich({make("ConvTranspose", {"a", "wt", "bt"}, {"m"}, {{"strides", ints({2, 2})}})}, 6,
                                 {{"wt", random_tensor({8, 6, 2, 2}, 7, -0.5f, 0.5f)}, {"bt", random_tensor({6}, 8)}});
               },
               false});
  c.push_back({"ConvTransposeTilingNoBias3x2",
               [] {
                 return sandwich({make("ConvTranspose", {"a", "wt"}, {"m"}, {{"strides", ints({3, 2})}})}, 6,
                                 {{"wt", random_tensor({8, 6, 3, 2}, 9, -0.5f, 0.5f)}});
               },
               false});
  return c;
}

void check_region(const Case& c) {
  Graph g = c.graph();
  optimize_for_inference(g, GraphOptimizationLevel::All);
  int in_domain = 0;
  for (const Node& n : g.nodes) in_domain += n.domain == kNhwcDomain;
  EXPECT_GE(in_domain, 2) << "the middle node should join the convs' region";
  for (const Dims& dims : {Dims{3, 4, 9, 7}, Dims{2, 4, 1, 1}, Dims{1, 4, 2, 3}}) {
    const Tensor x = random_tensor(dims, 10);
    Tensor want;
    try {
      want = run(c.graph(), GraphOptimizationLevel::Extended, x);
    } catch (const Error& e) {  // an input too small for the window: the same error channels-last
      try {
        run(c.graph(), GraphOptimizationLevel::All, x);
        ADD_FAILURE() << "channels-last ran where channels-first failed: " << e.what();
      } catch (const Error& f) {
        // The same words; only the node's index, which the inserted Transpose moves, may differ.
        const std::string a = e.what(), b = f.what();
        EXPECT_EQ(b.substr(b.find("): ")), a.substr(a.find("): ")));
      }
      continue;
    }
    const Tensor got = run(c.graph(), GraphOptimizationLevel::All, x);
    if (c.exact) {
      expect_identical(got, want);
    } else {
      expect_close(got, want, 1e-5);
      // Each sample alone gives the bits it gives in the batch.
      const int64_t per = x.numel() / x.dim(0), out_per = got.numel() / got.dim(0);
      for (int64_t s = 0; s < x.dim(0); ++s) {
        Dims one = dims;
        one[0] = 1;
        Tensor xs = Tensor::uninitialized(DType::Float32, one);
        std::memcpy(xs.raw(), x.data<float>() + s * per, size_t(per) * sizeof(float));
        const Tensor alone = run(c.graph(), GraphOptimizationLevel::All, xs);
        for (int64_t i = 0; i < out_per; ++i) ASSERT_EQ(alone.data<float>()[i], got.data<float>()[s * out_per + i]) << s << " " << i;
      }
    }
  }
}

// One test over every case (each names itself on failure): one process under CTest.
TEST(ChannelsLastRegion, EachOpComputesWhatTheChannelsFirstGraphDoes) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    check_region(c);
  }
}

TEST(ChannelsLastLayout, OneTransposeWhereAValueEntersOrLeavesARegion) {
  // x → Conv a → MaxPool p → Conv y (graph output); p is also read by Flatten (channels-first).
  Graph g = sandwich({make("MaxPool", {"a"}, {"m"}, {{"kernel_shape", ints({2, 2})}})}, 8);
  g.nodes.push_back(make("Flatten", {"m"}, {"f"}));
  g.outputs.push_back({"f", DType::Float32, std::nullopt});
  const LayoutReport r = assign_channels_last(g);
  EXPECT_EQ(r.channels_last_nodes, 3);
  EXPECT_EQ(r.transposes, 3);  // x in; m and y out
  std::vector<std::string> order;
  for (const Node& n : g.nodes) order.push_back(n.op_type + ":" + n.inputs[0] + "->" + n.outputs[0]);
  EXPECT_EQ(order, (std::vector<std::string>{"Transpose:x->x_nhwc", "Conv:x_nhwc->a_nhwc", "MaxPool:a_nhwc->m_nhwc",
                                             "Transpose:m_nhwc->m", "Conv:m_nhwc->y_nhwc", "Transpose:y_nhwc->y", "Flatten:m->f"}));
  const Tensor x = random_tensor({2, 4, 6, 6}, 11);
  Graph plain = sandwich({make("MaxPool", {"a"}, {"m"}, {{"kernel_shape", ints({2, 2})}})}, 8);
  plain.nodes.push_back(make("Flatten", {"m"}, {"f"}));
  plain.outputs.push_back({"f", DType::Float32, std::nullopt});
  Executor want(plain), got(g);
  const TensorMap a = want.run({{"x", x}}), b = got.run({{"x", x}});
  expect_identical(b.at("y"), a.at("y"));
  expect_identical(b.at("f"), a.at("f"));
}

TEST(ChannelsLastLayout, ALoneConvolutionStaysChannelsFirst) {
  // One convolution between channels-first ops would only trade its reorders for two Transposes.
  Graph g;
  g.opsets = {{"", 17}};
  g.initializers["w"] = random_tensor({4, 4, 3, 3}, 1);
  g.nodes = {make("Softmax", {"x"}, {"s"}), make("Conv", {"s", "w"}, {"c"}), make("Relu", {"c"}, {"r"}), make("Softmax", {"r"}, {"y"})};
  const size_t before = g.nodes.size();
  const LayoutReport r = assign_channels_last(g);
  EXPECT_EQ(r.channels_last_nodes, 0);
  EXPECT_EQ(g.nodes.size(), before);
}

TEST(ChannelsLastLayout, RuntimeWeightsAndPerChannelConstantsStayChannelsFirst) {
  // An Add whose other input is a [C, 1, 1] constant (which would broadcast along another axis
  // channels-last) reads the channels-first value.
  Graph g = sandwich({make("Add", {"a", "k"}, {"m"})}, 8, {{"k", random_tensor({8, 1, 1}, 12)}});
  assign_channels_last(g);
  for (const Node& n : g.nodes) {
    if (n.op_type == "Add") {
      EXPECT_EQ(n.inputs[0], "a");
    }
  }
  // A Conv whose weight is a graph input has no channels-last kernel to run.
  Graph h = sandwich({make("Conv", {"a", "wr"}, {"m"})}, 8);
  h.inputs.push_back({"wr", DType::Float32, std::nullopt});
  assign_channels_last(h);
  for (const Node& n : h.nodes) {
    if (n.inputs.size() > 1 && n.inputs[1] == "wr") {
      EXPECT_EQ(n.domain, "");
    }
  }
}

}  // namespace
}  // namespace q8
