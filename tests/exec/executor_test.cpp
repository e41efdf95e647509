// The executor: hook after every node, intermediates freed after their last use, shapes
// resolved per run, input validation with clear errors.
#include <gtest/gtest.h>

#include <tuple>

#include "engine/exec/executor.h"

namespace q8 {
namespace {

// x -> Relu -> Neg -> Relu -> … (depth nodes) -> y, with a dynamic batch.
Graph chain(int depth) {
  Graph g;
  g.opsets = {{"", 13}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{{-1, "N"}, {4, ""}}}};
  std::string prev = "x";
  for (int i = 0; i < depth; ++i) {
    Node n;
    n.op_type = i % 2 ? "Neg" : "Relu";
    n.name = "n" + std::to_string(i);
    n.inputs = {prev};
    n.outputs = {i + 1 == depth ? "y" : "v" + std::to_string(i)};
    prev = n.outputs[0];
    g.nodes.push_back(n);
  }
  g.outputs = {{"y", DType::Float32, std::nullopt}};
  return g;
}

TEST(Executor, HookSeesEveryNodeOutput) {
  Executor exec(chain(5));
  std::vector<std::string> seen;
  exec.set_hook([&](const Node& node, size_t index, const std::vector<Tensor>& outputs) {
    seen.push_back(node.name);
    ASSERT_EQ(outputs.size(), 1u);
    EXPECT_EQ(outputs[0].dims(), (Dims{3, 4}));
  });
  exec.run({{"x", Tensor(DType::Float32, {3, 4})}});
  EXPECT_EQ(seen, (std::vector<std::string>{"n0", "n1", "n2", "n3", "n4"}));
}

TEST(Executor, FreesIntermediatesAfterLastUse) {
  Executor exec(chain(12));
  size_t most_alive = 0;
  exec.set_hook([&](const Node&, size_t, const std::vector<Tensor>&) {
    most_alive = std::max(most_alive, exec.live_values());
  });
  exec.run({{"x", Tensor(DType::Float32, {2, 4})}});
  EXPECT_LE(most_alive, 3u) << "a chain needs its input, the current value and the next";
}

TEST(Executor, BatchMayChangeBetweenRuns) {
  Executor exec(chain(2));  // y = -relu(x)
  for (int64_t batch : {1, 7, 2}) {
    Tensor x(DType::Float32, {batch, 4});
    for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float(i) - 3.0f;
    const Tensor y = exec.run({{"x", x}}).at("y");
    ASSERT_EQ(y.dims(), (Dims{batch, 4}));
    for (int64_t i = 0; i < x.numel(); ++i) EXPECT_EQ(y.data<float>()[i], -std::max(0.0f, float(i) - 3.0f));
  }
}

void expect_error(Executor& exec, const TensorMap& inputs, const std::string& text) {
  try {
    exec.run(inputs);
    ADD_FAILURE() << "expected an error containing: " << text;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(Executor, InputErrorsNameTheInput) {
  Executor exec(chain(2));
  expect_error(exec, {}, "input 'x' is missing (model inputs: x)");
  expect_error(exec, {{"x", Tensor(DType::Float32, {1, 4})}, {"z", Tensor(DType::Float32, {1})}},
               "input 'z' matches no model input");
  expect_error(exec, {{"x", Tensor(DType::Int32, {1, 4})}}, "input 'x' is int32, the model expects float32");
  expect_error(exec, {{"x", Tensor(DType::Float32, {1, 5})}}, "input 'x' has shape 1x5, the model expects Nx4 (axis 1 is 5, expected 4)");
  expect_error(exec, {{"x", Tensor(DType::Float32, {4})}}, "(rank 1 vs 2)");
}

TEST(Executor, ListsEveryUnsupportedOp) {
  Graph g = chain(2);
  Node a, b, c;
  a.op_type = b.op_type = "Unique", a.name = "t1", b.name = "t2";
  c.op_type = "NonMaxSuppression", c.name = "nms";
  a.outputs = {"a"}, b.outputs = {"b"}, c.outputs = {"c"};
  g.nodes.insert(g.nodes.end(), {a, b, c});
  try {
    Executor exec(g);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unsupported ops: NonMaxSuppression ('nms'), Unique ('t1', 't2')");
  }
}

Node node(std::string op, std::vector<std::string> inputs, std::string output) {
  Node n;
  n.op_type = std::move(op);
  n.name = output;
  n.inputs = std::move(inputs);
  n.outputs = {std::move(output)};
  return n;
}

// y = Reshape(x, [dim 1 of `of`, -1]): the target shape from Shape → Gather → Unsqueeze → Concat,
// the shape arithmetic of a transformer's export. `of` is x, or NonZero(x) (dims that follow the data).
Graph reshape_by_own_dims(bool of_nonzero) {
  Graph g;
  g.opsets = {{"", 13}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{{-1, "N"}, {-1, "M"}}}};
  g.initializers["one"] = Tensor::from_vector<int64_t>({}, {1});
  g.initializers["axes"] = Tensor::from_vector<int64_t>({1}, {0});
  g.initializers["rest"] = Tensor::from_vector<int64_t>({1}, {-1});
  if (of_nonzero) g.nodes.push_back(node("NonZero", {"x"}, "nz"));
  g.nodes.push_back(node("Shape", {of_nonzero ? "nz" : "x"}, "s"));
  g.nodes.push_back(node("Gather", {"s", "one"}, "d"));
  g.nodes.push_back(node("Unsqueeze", {"d", "axes"}, "u"));
  g.nodes.push_back(node("Concat", {"u", "rest"}, "target"));
  g.nodes.back().attributes["axis"] = Attribute::of_int(0);
  if (of_nonzero) {
    g.nodes.push_back(node("ConstantOfShape", {"u"}, "y"));  // zeros, one per nonzero of x
  } else {
    g.nodes.push_back(node("Reshape", {"x", "target"}, "y"));
  }
  g.outputs = {{"y", DType::Float32, std::nullopt}};
  return g;
}

TEST(Executor, ReusesShapeWorkWhileTheDimsItReadStay) {
  Executor exec(reshape_by_own_dims(false));
  std::vector<std::string> seen;
  exec.set_hook([&](const Node& n, size_t, const std::vector<Tensor>& outputs) {
    seen.push_back(n.name);
    EXPECT_EQ(outputs.size(), 1u);
  });
  // (N, M) → the nodes reused, the output's dims [M, N].
  const std::vector<std::tuple<int64_t, int64_t, size_t>> runs = {{2, 3, 0}, {2, 3, 4}, {2, 3, 4}, {3, 5, 0}, {3, 5, 4}, {2, 3, 0}};
  for (const auto& [n, m, reused] : runs) {
    Tensor x(DType::Float32, {n, m});
    for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float(i);
    seen.clear();
    const Tensor y = exec.run({{"x", x}}).at("y");
    ASSERT_EQ(y.dims(), (Dims{m, n})) << n << "x" << m;
    for (int64_t i = 0; i < y.numel(); ++i) EXPECT_EQ(y.data<float>()[i], float(i));
    EXPECT_EQ(exec.reused_nodes(), reused) << n << "x" << m;
    EXPECT_EQ(seen, (std::vector<std::string>{"s", "d", "u", "target", "y"})) << "the hook sees reused nodes too";
  }
}

TEST(Executor, ShapeWorkOnDimsTheDataSetsRunsAgain) {
  Executor exec(reshape_by_own_dims(true));
  // The same input shape each run; the number of nonzeros changes, and with it y's length.
  // (x, its nonzeros, the nodes reused: Shape, Gather, Unsqueeze and Concat while NonZero's dims stay).
  for (const auto& [values, nonzero, reused] : std::vector<std::tuple<std::vector<float>, int64_t, size_t>>{
           {{1, 0, 1, 1}, 3, 0}, {{1, 0, 1, 1}, 3, 4}, {{0, 0, 0, 1}, 1, 0}, {{0, 2, 0, 1}, 2, 0}, {{2, 0, 1, 0}, 2, 4}}) {
    const Tensor x = Tensor::from_vector<float>({2, 2}, values);
    const Tensor y = exec.run({{"x", x}}).at("y");
    EXPECT_EQ(y.dims(), (Dims{nonzero}));
    EXPECT_EQ(exec.reused_nodes(), reused);
  }
}

TEST(Executor, NodeErrorsCarryNodeContext) {
  Graph g = chain(1);
  Node bad;
  bad.op_type = "Reshape", bad.name = "flat", bad.inputs = {"y", "shape"}, bad.outputs = {"z"};
  g.initializers["shape"] = Tensor::from_vector<int64_t>({1}, {5});
  g.nodes.push_back(bad);
  g.outputs = {{"z", DType::Float32, std::nullopt}};
  Executor exec(g);
  expect_error(exec, {{"x", Tensor(DType::Float32, {1, 4})}},
               "Reshape 'flat' (node 1): Reshape: cannot reshape 1x4 (4 elements) to 5");
}

}  // namespace
}  // namespace q8
