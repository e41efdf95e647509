// channels_last_outputs: which tensor-core convs keep their output channels-last. Graphs of QConv
// nodes built by hand; the answer is checked node by node against the rule in channels_last.h.
#include "engine/opencl/channels_last.h"

#include <gtest/gtest.h>

namespace q8 {
namespace {

DeviceCaps hopper() {
  DeviceCaps c;
  c.platform = "NVIDIA CUDA", c.vendor = "NVIDIA Corporation", c.nvidia = true, c.nv_sm = 90;
  return c;
}

// A graph of QConvs named by their outputs; add(out, x, c, m, kernel, residual) adds a conv from
// c to m channels reading x (and residual, when given).
struct ConvGraph {
  Graph g;
  ConvGraph() { g.inputs.push_back(ValueInfo{"input", DType::Int8, std::nullopt}); }

  void add(const std::string& out, const std::string& x, int64_t c, int64_t m, int64_t kernel = 1, const std::string& residual = "",
           int64_t group = 1) {
    Node n;
    n.name = out, n.op_type = "QConv", n.domain = kInt8Domain;
    n.inputs = {x, out + ".w", out + ".b", out + ".s"};
    if (!residual.empty()) n.inputs.push_back(residual);
    n.outputs = {out};
    n.attributes["group"] = Attribute::of_int(group);
    g.initializers[out + ".w"] = Tensor(DType::Int8, {m, c / group, kernel, kernel});
    g.initializers[out + ".b"] = Tensor(DType::Int32, {m});
    g.initializers[out + ".s"] = Tensor(DType::Float32, {m});
    g.nodes.push_back(n);
  }
  void reader(const std::string& op, const std::string& x, const std::string& out) {
    Node n;
    n.name = out, n.op_type = op, n.inputs = {x}, n.outputs = {out};
    g.nodes.push_back(n);
  }
  void output(const std::string& value) { g.outputs.push_back(ValueInfo{value, DType::Int8, std::nullopt}); }

  std::vector<std::string> kept(const DeviceCaps& caps) const {
    const GraphIndex index(g);
    const std::vector<bool> k = channels_last_outputs(index, caps);
    std::vector<std::string> names;
    for (size_t i = 0; i < k.size(); ++i)
      if (k[i]) names.push_back(g.nodes[i].name);
    return names;
  }
};

using Names = std::vector<std::string>;

TEST(OpenClChannelsLast, ABottleneckKeepsEveryConvBeforeThePool) {
  ConvGraph cg;
  cg.add("a", "input", 3, 64, 7);     // the stem reads the NCHW input; its readers are convs
  cg.add("b", "a", 64, 64, 1);        // 1 × 1
  cg.add("c", "b", 64, 64, 3);        // 3 × 3
  cg.add("d", "c", 64, 256, 1, "a");  // its residual is a
  cg.reader("GlobalAveragePool", "d", "pooled");
  cg.output("pooled");
  // d's reader is no conv, so d writes NCHW; it reads a's channels-last output as its residual.
  EXPECT_EQ(cg.kept(hopper()), (Names{"a", "b", "c"}));
}

TEST(OpenClChannelsLast, EveryReaderMustBeATensorCoreConvReadingWholeChunks) {
  ConvGraph cg;
  cg.add("a", "input", 16, 32);
  cg.add("b", "a", 32, 24);
  cg.reader("MaxPool", "a", "pool");  // a second reader that is not a conv
  cg.add("c", "b", 24, 32);           // reads b with C = 24: not whole 16-byte chunks
  cg.add("d", "c", 32, 32, 3, "", 32);  // depthwise: the portable kernel
  cg.add("e", "d", 32, 32);
  cg.output("pool"), cg.output("e");
  EXPECT_EQ(cg.kept(hopper()), Names{});
}

TEST(OpenClChannelsLast, AResidualIsReadInEitherLayout) {
  ConvGraph cg;
  cg.add("a", "input", 16, 32);
  cg.add("b", "a", 32, 32, 3);
  cg.add("c", "b", 32, 32, 1, "a");  // a graph output: c writes NCHW and reads a channels-last
  cg.output("c");
  cg.add("p", "input", 16, 32);
  cg.add("q", "p", 32, 32, 1, "input");  // a residual no conv made, read as NCHW
  cg.add("r", "q", 32, 32);
  cg.output("r");
  EXPECT_EQ(cg.kept(hopper()), (Names{"a", "b", "p", "q"}));
}

TEST(OpenClChannelsLast, NoneWithoutTensorCores) {
  ConvGraph cg;
  cg.add("a", "input", 16, 32);
  cg.add("b", "a", 32, 32, 3);
  cg.output("b");
  DeviceCaps pocl;
  pocl.platform = "Portable Computing Language";
  EXPECT_EQ(cg.kept(pocl), Names{});
  EXPECT_EQ(cg.kept(hopper()), Names{"a"});
}

}  // namespace
}  // namespace q8
