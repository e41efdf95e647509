// channels_last_outputs: which tensor-core convs keep their output channels-last. Graphs of QConv
// nodes built by hand; the answer is checked node by node against the rule in channels_last.h.
#include "engine/opencl/channels_last.h"

#include <random>

#include <gtest/gtest.h>

#include "engine/exec/executor.h"
#include "engine/runtime/devices.h"
#include "engine/plan/reference/backend.h"

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
  cg.add("c", "b", 24, 32);             // reads b with C = 24: not whole 16-byte chunks
  cg.add("d", "c", 32, 32, 3, "", 2);    // grouped, not depthwise: the portable kernel
  cg.add("e", "d", 32, 32);
  cg.output("pool"), cg.output("e");
  EXPECT_EQ(cg.kept(hopper()), Names{});
}

TEST(OpenClChannelsLast, DepthwiseConvsOfWholeChunksReadAndWriteIt) {
  ConvGraph cg;
  cg.add("a", "input", 16, 32);          // expand
  cg.add("b", "a", 32, 32, 3, "", 32);   // depthwise, C = 32
  cg.add("c", "b", 32, 24);              // project
  cg.add("d", "c", 24, 24, 3, "", 24);   // depthwise, C = 24: not whole chunks
  cg.add("e", "d", 24, 32);
  cg.output("e");
  EXPECT_EQ(cg.kept(hopper()), (Names{"a", "b"}));
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

// Depthwise convs reading each other's outputs run channels-last on any device (the rule needs no
// tensor cores): NCHW in and channels-last out, channels-last both ways, channels-last in and NCHW
// out; and two of float output (one with Swish in its epilogue, as EfficientNet's before its
// squeeze-excitation gate) reading a channels-last int8 output. The executor's outputs through
// OpenCL must be the integer reference's, bit for bit.
TEST(OpenClChannelsLast, DepthwiseChainsGiveTheReferencesBytes) {
  if (list_devices().empty()) GTEST_SKIP() << "no OpenCL device";
  std::mt19937 rng(7);
  Graph g;
  const int64_t c = 32;
  g.inputs.push_back(ValueInfo{"input", DType::Int8, std::nullopt});
  struct Layer {
    int64_t kernel, stride, dilation, pad;
  };
  const Layer layers[] = {{3, 1, 1, 1}, {3, 2, 1, 1}, {5, 1, 2, 3}};
  std::string x = "input";
  for (size_t i = 0; i < 3; ++i) {
    const Layer& l = layers[i];
    const std::string out = "dw" + std::to_string(i);
    Tensor w(DType::Int8, {c, 1, l.kernel, l.kernel}), b(DType::Int32, {c}), m(DType::Float32, {c});
    for (int8_t& v : w.values<int8_t>()) v = int8_t(int(rng() % 255) - 127);
    for (int32_t& v : b.values<int32_t>()) v = int32_t(rng() % 2001) - 1000;
    for (float& v : m.values<float>()) v = 0.0005f + float(rng() % 1000) * 0.00001f;
    g.initializers[out + ".w"] = w, g.initializers[out + ".b"] = b, g.initializers[out + ".s"] = m;
    Node n;
    n.name = out, n.op_type = "QConv", n.domain = kInt8Domain;
    n.inputs = {x, out + ".w", out + ".b", out + ".s"}, n.outputs = {out};
    n.attributes["group"] = Attribute::of_int(c);
    n.attributes["strides"] = Attribute::of_ints({l.stride, l.stride});
    n.attributes["dilations"] = Attribute::of_ints({l.dilation, l.dilation});
    n.attributes["pads"] = Attribute::of_ints({l.pad, l.pad, l.pad, l.pad});
    n.attributes["lo"] = Attribute::of_int(i == 0 ? 0 : -128), n.attributes["hi"] = Attribute::of_int(127);
    g.nodes.push_back(n);
    x = out;
  }
  g.outputs.push_back(ValueInfo{x, DType::Int8, std::nullopt});
  for (const char* activation : {"Swish", ""}) {  // float out: float b and S
    const std::string out = std::string("dw_float") + activation;
    Tensor w(DType::Int8, {c, 1, 3, 3}), b(DType::Float32, {c}), s(DType::Float32, {c});
    for (int8_t& v : w.values<int8_t>()) v = int8_t(int(rng() % 255) - 127);
    for (float& v : b.values<float>()) v = float(int(rng() % 2001) - 1000) * 0.001f;
    for (float& v : s.values<float>()) v = 0.0002f + float(rng() % 1000) * 0.000002f;
    g.initializers[out + ".w"] = w, g.initializers[out + ".b"] = b, g.initializers[out + ".s"] = s;
    Node n;
    n.name = out, n.op_type = "QConv", n.domain = kInt8Domain;
    n.inputs = {"dw1", out + ".w", out + ".b", out + ".s"}, n.outputs = {out};
    n.attributes["group"] = Attribute::of_int(c);
    n.attributes["pads"] = Attribute::of_ints({1, 1, 1, 1});
    if (*activation) n.attributes["activation"] = Attribute::of_string(activation);
    g.nodes.push_back(n);
    g.outputs.push_back(ValueInfo{out, DType::Float32, std::nullopt});
  }
  {
    const GraphIndex index(g);
    EXPECT_EQ(channels_last_outputs(index, DeviceCaps{}), (std::vector<bool>{true, true, false, false, false}));
  }
  Tensor input(DType::Int8, {2, c, 13, 11});
  for (int8_t& v : input.values<int8_t>()) v = int8_t(int(rng() % 256) - 128);
  Executor reference(g, BackendList{&int8_reference_backend()});
  Executor opencl(g, BackendList{&opencl_backend(0), &int8_reference_backend()});
  for (size_t i = 0; i < g.nodes.size(); ++i) ASSERT_EQ(opencl.placement()[i], "opencl") << g.nodes[i].name;
  const TensorMap want = reference.run({{"input", input}}), got = opencl.run({{"input", input}});
  for (const ValueInfo& o : g.outputs) {
    const Tensor &a = got.at(o.name), &b = want.at(o.name);
    ASSERT_EQ(a.dims(), b.dims()) << o.name;
    ASSERT_EQ(a.nbytes(), b.nbytes()) << o.name;
    for (size_t i = 0; i < a.nbytes(); ++i)
      ASSERT_EQ(std::to_integer<int>(a.raw()[i]), std::to_integer<int>(b.raw()[i])) << o.name << ": first difference at byte " << i;
  }
}

}  // namespace
}  // namespace q8
