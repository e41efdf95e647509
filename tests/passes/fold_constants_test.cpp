// fold_constants: constant subgraphs become initializers; with static input shapes the shape
// subgraphs of a PyTorch export (Shape → Gather → Unsqueeze → Concat → Reshape) fold away, and
// the folded graph computes what the original did.
#include <gtest/gtest.h>

#include "engine/exec/executor.h"
#include "engine/passes/fold_constants.h"
#include "tests/ops/op_harness.h"

namespace q8 {
namespace {

// y = Reshape(x, Concat(Gather(Shape(x), 0), [-1])) + (c1 · c2), the shape subgraph of view(N, -1).
Graph flatten_by_shape_subgraph(bool static_batch) {
  Graph g;
  g.opsets = {{"", 13}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{static_batch ? Dim{2, ""} : Dim{-1, "N"}, Dim{3, ""}, Dim{4, ""}}}};
  g.outputs = {{"y", DType::Float32, std::nullopt}};
  g.initializers["zero"] = Tensor::scalar<int64_t>(0);
  g.initializers["minus_one"] = Tensor::from_vector<int64_t>({1}, {-1});
  g.initializers["axes"] = Tensor::from_vector<int64_t>({1}, {0});
  g.initializers["c1"] = Tensor::from_vector<float>({12}, std::vector<float>(12, 2.0f));
  g.initializers["c2"] = Tensor::from_vector<float>({12}, std::vector<float>(12, 0.25f));
  auto node = [&](const char* op, std::vector<std::string> in, std::vector<std::string> out) {
    Node n;
    n.op_type = op, n.name = out[0], n.inputs = std::move(in), n.outputs = std::move(out);
    g.nodes.push_back(n);
    return &g.nodes.back();
  };
  node("Shape", {"x"}, {"shape"});
  node("Gather", {"shape", "zero"}, {"batch"});
  node("Unsqueeze", {"batch", "axes"}, {"batch1"});
  node("Concat", {"batch1", "minus_one"}, {"target"})->attributes["axis"] = Attribute::of_int(0);
  node("Reshape", {"x", "target"}, {"flat"});
  node("Mul", {"c1", "c2"}, {"c"});
  node("Add", {"flat", "c"}, {"y"});
  return g;
}

TEST(FoldConstants, StaticShapesFoldTheShapeSubgraph) {
  const Graph original = flatten_by_shape_subgraph(true);
  Graph folded = original;
  const ConstantFoldReport report = fold_constants(folded);
  EXPECT_TRUE(report.static_shapes);
  EXPECT_EQ(report.folded, 5u);  // Shape, Gather, Unsqueeze, Concat, Mul
  ASSERT_EQ(folded.nodes.size(), 2u);  // Reshape and Add remain
  EXPECT_EQ(folded.nodes[0].op_type, "Reshape");
  const Tensor x = random_tensor({2, 3, 4}, 1);
  const Tensor a = Executor(original).run({{"x", x}}).at("y"), b = Executor(folded).run({{"x", x}}).at("y");
  ASSERT_EQ(a.dims(), b.dims());
  for (int64_t i = 0; i < a.numel(); ++i) ASSERT_EQ(a.data<float>()[i], b.data<float>()[i]);
}

TEST(FoldConstants, DynamicShapesKeepTheShapeSubgraph) {
  Graph g = flatten_by_shape_subgraph(false);
  const ConstantFoldReport report = fold_constants(g);
  EXPECT_FALSE(report.static_shapes);
  EXPECT_EQ(report.folded, 1u);  // only Mul of two initializers
  EXPECT_EQ(g.nodes.size(), 6u);
  const Tensor x = random_tensor({5, 3, 4}, 2);
  EXPECT_EQ(Executor(g).run({{"x", x}}).at("y").dims(), (Dims{5, 12}));
}

}  // namespace
}  // namespace q8
