// Executor-owned buffers: the first run at a set of input shapes traces every value's size and
// lifetime, later runs place sized outputs in one arena planned from it. Results must not change
// between the traced run, arena runs, and runs after the batch changes. A view op's output
// (Reshape's) is its input's bytes: the plan keeps them for the view's readers, and a view that
// is a graph output is copied out of the arena.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/exec/executor.h"
#include "engine/plan/reference/backend.h"

namespace q8 {
namespace {

Node make_node(const std::string& domain, const std::string& op, const std::string& name, std::vector<std::string> in,
               std::vector<std::string> out) {
  Node n;
  n.domain = domain, n.op_type = op, n.name = name, n.inputs = std::move(in), n.outputs = std::move(out);
  return n;
}

// A QGemm over x [B, 4] with weights seeded by `seed`, as the lowering writes one.
void add_qgemm(Graph& g, const std::string& name, const std::string& x, const std::string& y, int seed) {
  Tensor w(DType::Int8, {4, 4}), b(DType::Int32, {4}), m(DType::Float32, {4});
  for (int i = 0; i < 16; ++i) w.data<int8_t>()[i] = int8_t((i * 7 + seed * 13) % 255 - 127);
  for (int c = 0; c < 4; ++c) b.data<int32_t>()[c] = (c - 2) * 50 * seed, m.data<float>()[c] = 0.01f * float(c + seed);
  g.initializers[name + "_w"] = w, g.initializers[name + "_b"] = b, g.initializers[name + "_m"] = m;
  g.nodes.push_back(make_node(kInt8Domain, "QGemm", name, {x, name + "_w", name + "_b", name + "_m"}, {y}));
}

// y1 = QGemm(x); r = Reshape(y1) (a view of y1); y2 = QGemm(x), which the arena must not put on
// y1's bytes, since the QAdd reads them through r; z = QAdd(r, y2).
Graph aliasing_graph() {
  Graph g;
  g.opsets = {{"", 13}, {kInt8Domain, 1}};
  g.inputs = {{"x", DType::Int8, std::vector<Dim>{{-1, "B"}, {4, ""}}}};
  add_qgemm(g, "g1", "x", "y1", 1);
  g.initializers["shape"] = Tensor::from_vector<int64_t>({2}, {-1, 4});
  g.nodes.push_back(make_node("", "Reshape", "reshape", {"y1", "shape"}, {"r"}));
  add_qgemm(g, "g2", "x", "y2", 2);
  Node add = make_node(kInt8Domain, "QAdd", "add", {"r", "y2"}, {"z"});
  add.attributes = {{"a_scale", Attribute::of_float(0.5f)}, {"b_scale", Attribute::of_float(0.75f)}};
  g.nodes.push_back(add);
  g.outputs = {{"z", DType::Int8, std::nullopt}};
  return g;
}

Tensor input(int64_t batch, int seed) {
  Tensor x(DType::Int8, {batch, 4});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<int8_t>()[i] = int8_t((i * 31 + seed * 17) % 251 - 125);
  return x;
}

BackendList backends() { return {&int8_reference_backend(), &cpu_backend()}; }

std::vector<int8_t> values(const Tensor& t) { return {t.data<int8_t>(), t.data<int8_t>() + t.numel()}; }

TEST(ExecutorMemory, ArenaRunsEqualTheTracedRunAndAFreshExecutor) {
  Executor exec(aliasing_graph(), backends());
  for (int64_t batch : {3, 3, 3, 7, 7, 1, 3}) {
    const Tensor x = input(batch, int(batch));
    const Tensor fresh = Executor(aliasing_graph(), backends()).run({{"x", x}}).at("z");  // traced, no arena
    const Tensor got = exec.run({{"x", x}}).at("z");
    ASSERT_EQ(got.dims(), (Dims{batch, 4}));
    EXPECT_EQ(values(got), values(fresh)) << "batch " << batch;
  }
}

TEST(ExecutorMemory, LivenessLetsDeadValuesShareBytes) {
  Executor exec(aliasing_graph(), backends());
  exec.run({{"x", input(16, 1)}});
  const MemoryReport& m = exec.memory();
  ASSERT_EQ(m.values.size(), 3u);  // y1 (r is its bytes), y2, z
  EXPECT_EQ(m.values[0].value, "y1");
  EXPECT_EQ(m.values[0].last, 3);            // read last through r, by the QAdd
  EXPECT_EQ(m.values[2].last, 4);            // a graph output lives to the end
  EXPECT_EQ(m.owned_bytes, 2 * 64);          // y1 and y2 (16 × 4 int8 each); z is returned
  EXPECT_EQ(m.arena.arena_bytes, 128);       // both live at the QAdd
  EXPECT_EQ(m.arena.offsets, (std::vector<int64_t>{0, 64}));
}

// y1 = QGemm(x); r = Reshape(y1), a graph output; y2 = QGemm(x) on y1's bytes (dead after the
// Reshape); z = QAdd(y2, y2). r, a view into the arena, must be copied out before y2 overwrites it.
TEST(ExecutorMemory, AViewThatIsAGraphOutputIsCopiedOutOfTheArena) {
  Graph g = aliasing_graph();
  g.nodes.back().inputs = {"y2", "y2"};
  g.outputs.push_back({"r", DType::Int8, std::nullopt});
  Executor exec(g, backends());
  exec.run({{"x", input(4, 1)}});
  EXPECT_EQ(exec.memory().arena.arena_bytes, 64);  // y2 reuses y1's bytes
  for (int seed : {2, 3}) {
    const Tensor x = input(4, seed);
    const TensorMap got = exec.run({{"x", x}}), fresh = Executor(g, backends()).run({{"x", x}});
    EXPECT_EQ(values(got.at("r")), values(fresh.at("r"))) << "seed " << seed;
    EXPECT_EQ(values(got.at("z")), values(fresh.at("z"))) << "seed " << seed;
  }
}

TEST(ExecutorMemory, ReturnedOutputsAreNotOverwrittenByLaterRuns) {
  Executor exec(aliasing_graph(), backends());
  exec.run({{"x", input(2, 5)}});
  const Tensor first = exec.run({{"x", input(2, 5)}}).at("z");
  const std::vector<int8_t> kept = values(first);
  exec.run({{"x", input(2, 9)}});
  EXPECT_EQ(values(first), kept);
}

// plan_memory's rule, written plainly (every placed buffer looked at for each new one): the
// search by lifetime must place every buffer at the same offset.
MemoryPlan plan_memory_plainly(const std::vector<BufferLifetime>& buffers) {
  const auto aligned = [](int64_t bytes) { return (bytes + 63) / 64 * 64; };
  MemoryPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  std::vector<size_t> order(buffers.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return buffers[a].bytes != buffers[b].bytes ? buffers[a].bytes > buffers[b].bytes : buffers[a].first < buffers[b].first;
  });
  std::vector<size_t> placed;
  for (size_t i : order) {
    const BufferLifetime& b = buffers[i];
    plan.total_bytes += aligned(b.bytes);
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (size_t j : placed)
      if (buffers[j].first <= b.last && b.first <= buffers[j].last) busy.emplace_back(plan.offsets[j], plan.offsets[j] + aligned(buffers[j].bytes));
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (const auto& [start, end] : busy) {
      if (offset + aligned(b.bytes) <= start) break;
      offset = std::max(offset, end);
    }
    plan.offsets[i] = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + aligned(b.bytes));
    placed.push_back(i);
  }
  return plan;
}

TEST(MemoryPlan, EqualsThePlainPlacementOnRandomLifetimes) {
  uint64_t state = 7;
  const auto next = [&](uint64_t n) { return ((state = state * 6364136223846793005ull + 1442695040888963407ull) >> 33) % n; };
  for (int round = 0; round < 40; ++round) {
    std::vector<BufferLifetime> buffers;
    const int nodes = 1 + int(next(200));
    for (int i = 0; i < nodes; ++i)
      for (uint64_t k = 0, outs = next(3); k < outs; ++k) {
        const int span = next(4) == 0 ? int(next(uint64_t(nodes) + 1)) : int(next(3));  // some live long (skip connections)
        buffers.push_back({"v", int64_t(next(5)) * 64 + int64_t(next(100)), i, std::min(nodes, i + span)});
      }
    const MemoryPlan want = plan_memory_plainly(buffers), got = plan_memory(buffers);
    EXPECT_EQ(got.offsets, want.offsets) << "round " << round;
    EXPECT_EQ(got.arena_bytes, want.arena_bytes);
    EXPECT_EQ(got.total_bytes, want.total_bytes);
  }
}

}  // namespace
}  // namespace q8
