// CallbackBatches: batches a program hands over, checked against the model's inputs, counted, and
// never asked for again once they end.
#include <gtest/gtest.h>

#include "datasets/callback_batches.h"

namespace q8 {
namespace {

// Inputs x [batch, 3] float32 and a scalar-free mask [batch, 2] int64.
Graph two_inputs() {
  Graph g;
  g.inputs.push_back({"x", DType::Float32, std::vector<Dim>{{-1, "batch"}, {3, ""}}});
  g.inputs.push_back({"mask", DType::Int64, std::vector<Dim>{{-1, "batch"}, {2, ""}}});
  return g;
}

TensorMap batch_of(int64_t n) { return {{"x", Tensor(DType::Float32, {n, 3})}, {"mask", Tensor(DType::Int64, {n, 2})}}; }

// A source over the given batches; `asked` counts the calls.
CallbackBatches source_of(const Graph& g, std::vector<TensorMap> batches, int* asked) {
  auto left = std::make_shared<std::vector<TensorMap>>(std::move(batches));
  return CallbackBatches(g, [left, asked]() -> std::optional<TensorMap> {
    ++*asked;
    if (left->empty()) return std::nullopt;
    TensorMap b = left->front();
    left->erase(left->begin());
    return b;
  });
}

TEST(CallbackBatches, CountsSamplesAndPositionsAndStopsAskingAtTheEnd) {
  const Graph g = two_inputs();
  int asked = 0;
  CallbackBatches s = source_of(g, {batch_of(4), batch_of(1), batch_of(3)}, &asked);
  EXPECT_EQ(s.total(), -1);
  std::vector<int64_t> counts, positions;
  while (auto b = s.next()) {
    counts.push_back(b->count), positions.push_back(b->position);
    EXPECT_EQ(b->labels.size(), size_t(b->count));
    EXPECT_EQ(b->indices.front(), size_t(b->position - b->count));
  }
  EXPECT_EQ(counts, (std::vector<int64_t>{4, 1, 3}));
  EXPECT_EQ(positions, (std::vector<int64_t>{4, 5, 8}));
  EXPECT_EQ(asked, 4);
  EXPECT_FALSE(s.next());
  EXPECT_EQ(asked, 4);  // the end is remembered
}

void expect_error(TensorMap batch, const std::string& message) {
  const Graph g = two_inputs();
  int asked = 0;
  CallbackBatches s = source_of(g, {batch_of(2), std::move(batch)}, &asked);
  ASSERT_TRUE(s.next());
  try {
    s.next();
    FAIL() << "no error; expected: " << message;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST(CallbackBatches, NamesTheBatchAndInputOfEveryMismatch) {
  TensorMap extra = batch_of(2);
  extra["y"] = Tensor(DType::Float32, {2, 3});
  expect_error(extra, "batch 1: 'y' is not an input of the model (its inputs: x, mask)");
  TensorMap missing = batch_of(2);
  missing.erase("mask");
  expect_error(missing, "batch 1: no tensor for input 'mask'");
  TensorMap type = batch_of(2);
  type["mask"] = Tensor(DType::Int32, {2, 2});
  expect_error(type, "batch 1, input 'mask': int32 given, the model takes int64");
  TensorMap rank = batch_of(2);
  rank["x"] = Tensor(DType::Float32, {2, 3, 1});
  expect_error(rank, "batch 1, input 'x': shape 2x3x1 given, the model takes rank 2");
  TensorMap dim = batch_of(2);
  dim["x"] = Tensor(DType::Float32, {2, 4});
  expect_error(dim, "batch 1, input 'x': shape 2x4 given");
  TensorMap sizes = batch_of(2);
  sizes["mask"] = Tensor(DType::Int64, {3, 2});
  expect_error(sizes, "batch 1, input 'mask': 3 samples along axis 0, other inputs of the batch hold 2");
  expect_error(batch_of(0), "batch 1: holds no samples");
}

}  // namespace
}  // namespace q8
