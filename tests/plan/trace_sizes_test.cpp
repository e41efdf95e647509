// q8 build sizes a plan's values from shapes alone (Executor::trace_sizes): every value, its bytes
// and its lifetime must equal what a run at the same shapes records, on the shipped model in
// FP32, its INT8 plan, and a graph whose Reshape and Expand take shapes computed from Shape.
#include <gtest/gtest.h>

#include <cstring>

#include "calib/calibrate.h"
#include "engine/onnx/import.h"
#include "engine/passes/optimize_for_inference.h"
#include "engine/plan/build_plan.h"
#include "engine/runtime/backends.h"
#include "engine/runtime/runnable.h"
#include "quant/materialize.h"
#include "tests/ops/op_harness.h"

namespace q8 {
namespace {

void expect_trace_equals_run(const Graph& graph, const TensorMap& inputs) {
  std::vector<TensorDesc> descs;
  for (const ValueInfo& v : graph.inputs) descs.push_back(inputs.at(v.name).desc());
  Executor traced(graph, backends_for("cpu"));
  const SizeTrace trace = traced.trace_sizes(descs);
  EXPECT_TRUE(trace.unsized.empty()) << trace.unsized.size() << " unsized, first " << trace.unsized[0];
  Executor ran(graph, backends_for("cpu"));
  ran.run(inputs);
  const std::vector<BufferLifetime>& want = ran.memory().values;
  ASSERT_EQ(trace.values.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(trace.values[i].value, want[i].value);
    EXPECT_EQ(trace.values[i].bytes, want[i].bytes) << want[i].value;
    EXPECT_EQ(trace.values[i].first, want[i].first) << want[i].value;
    EXPECT_EQ(trace.values[i].last, want[i].last) << want[i].value;
  }
  // The traced executor then runs as any other: its reshapes are those of these shapes.
  EXPECT_EQ(traced.run(inputs).size(), graph.outputs.size());
}

const char* kFashion = Q8_SOURCE_DIR "/datasets/models/fashion_cnn.onnx";

// The shipped model with QDQ pairs from 16 calibration images, max ranges.
Graph fashion_qdq() {
  const Graph g = load_model(kFashion);
  CalibrateOptions options;
  options.method = "max";
  options.stream.limit = 16;
  const RangeTable table = calibrate(g, "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz", options);
  QuantizeReport report;
  return quantize_graph(g, table, {}, {}, report);
}

TEST(TraceSizes, ShippedModelInFp32) {
  const Graph g = load_model(kFashion);
  expect_trace_equals_run(g, {{"input", random_tensor({3, 1, 28, 28}, 1)}});
}

TEST(TraceSizes, ShippedModelsInt8Plan) {
  const Graph qdq = fashion_qdq();
  const Graph plan = lower_qdq(qdq).graph;
  expect_trace_equals_run(plan, {{"input", random_tensor({5, 1, 28, 28}, 2)}});
}

// A plan stores the arena the executor of its backends places its own buffers in, and a run of the
// plan at its shapes uses that arena from the first run: the same offsets, the same outputs as an
// executor that traces its first run, and no tracing. On the CPU that run is of the graph after the
// layout pass (as q8 run makes it at its default level). An executor whose buffers differ (one of
// another size, or the graph without the layout pass) does not take it.
TEST(TraceSizes, APlansMemoryPlanIsTheOneItsRunUses) {
  const Graph qdq = fashion_qdq();
  const BuiltPlan built = build_plan(qdq, "0", {{"input", {DType::Float32, {4, 1, 28, 28}}}}, backends_for("cpu"));
  ASSERT_FALSE(built.plan.buffers.empty());
  const Tensor x = random_tensor({4, 1, 28, 28}, 5);
  Runnable runnable{built.plan.graph, built.plan};
  Graph laid_out = built.plan.graph;
  EXPECT_GT(optimize_for_inference(laid_out, GraphOptimizationLevel::All, true).layout.channels_last_nodes, 0);
  runnable.graph = laid_out;
  std::string note;
  const std::unique_ptr<Executor> planned = make_executor(runnable, "cpu", &note);
  EXPECT_NE(note.find("the plan's"), std::string::npos) << note;
  EXPECT_EQ(planned->memory().arena.offsets, built.plan.memory.offsets);
  EXPECT_EQ(planned->memory().arena.arena_bytes, built.plan.memory.arena_bytes);
  Executor traced(laid_out, backends_for("cpu"));
  const Tensor want = traced.run({{"input", x}}).at("logits"), got = planned->run({{"input", x}}).at("logits");
  ASSERT_EQ(want.dims(), got.dims());
  EXPECT_EQ(std::memcmp(want.raw(), got.raw(), want.nbytes()), 0);
  EXPECT_EQ(traced.memory().arena.offsets, built.plan.memory.offsets) << "the executor's own plan differs from the stored one";
  // A plan whose buffers are not this executor's (one of another size) is not taken.
  std::vector<BufferLifetime> other = built.plan.buffers;
  other[0].bytes += 64;
  Executor another(laid_out, backends_for("cpu"));
  EXPECT_FALSE(another.use_memory_plan({TensorDesc{DType::Float32, {4, 1, 28, 28}}}, other, built.plan.memory));
  Executor without_layout(built.plan.graph, backends_for("cpu"));
  EXPECT_FALSE(without_layout.use_memory_plan({TensorDesc{DType::Float32, {4, 1, 28, 28}}}, built.plan.buffers, built.plan.memory));
}

Node make(const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
          std::map<std::string, Attribute> attrs = {}) {
  Node n;
  n.op_type = op, n.name = out[0], n.inputs = std::move(in), n.outputs = std::move(out), n.attributes = std::move(attrs);
  return n;
}

// y = Reshape(x, [batch, -1]) with batch from Shape(x); z = Expand(y's first column, Shape(y)).
TEST(TraceSizes, ShapesComputedFromShape) {
  Graph g;
  g.opsets = {{"", 13}};
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{{-1, "n"}, {3, ""}, {4, ""}}}};
  g.initializers["zero"] = Tensor::from_vector<int64_t>({1}, {0});
  g.initializers["minus_one"] = Tensor::from_vector<int64_t>({1}, {-1});
  g.initializers["starts"] = Tensor::from_vector<int64_t>({1}, {0});
  g.initializers["ends"] = Tensor::from_vector<int64_t>({1}, {1});
  g.initializers["axes"] = Tensor::from_vector<int64_t>({1}, {1});
  g.nodes = {make("Shape", {"x"}, {"s"}),
             make("Gather", {"s", "zero"}, {"batch"}, {{"axis", Attribute::of_int(0)}}),
             make("Concat", {"batch", "minus_one"}, {"shape"}, {{"axis", Attribute::of_int(0)}}),
             make("Reshape", {"x", "shape"}, {"y"}),
             make("Slice", {"y", "starts", "ends", "axes"}, {"col"}),
             make("Shape", {"y"}, {"ys"}),
             make("Expand", {"col", "ys"}, {"z"}),
             make("Relu", {"z"}, {"out"})};
  g.outputs = {{"out", DType::Float32, std::nullopt}};
  expect_trace_equals_run(g, {{"x", random_tensor({6, 3, 4}, 3)}});
}

}  // namespace
}  // namespace q8
