// Batches a program hands over one at a time (an iterable of {name: array} in Python, ONNX
// Runtime's CalibrationDataReader): each is checked against the model's inputs before it runs —
// every input given and no other, the model's element type, its rank and fixed dims, one batch
// size across the inputs that have a batch axis — and errors name the batch and the input.
#pragma once

#include <functional>
#include <string>

#include "datasets/batch_source.h"
#include "engine/ir/graph.h"

namespace q8 {

class CallbackBatches : public BatchSource {
 public:
  // next_inputs returns the next batch's tensors by input name, or nullopt at the end; total is
  // the samples it will give if known (-1 otherwise).
  using NextInputs = std::function<std::optional<TensorMap>()>;
  CallbackBatches(const Graph& graph, NextInputs next_inputs, int64_t total = -1);

  std::optional<Batch> next() override;
  int64_t total() const override { return total_; }

 private:
  struct Input {
    ValueInfo info;
    int64_t batch_axis = 0;  // -1: none (a scalar)
  };
  std::vector<Input> inputs_;
  NextInputs next_inputs_;
  int64_t total_ = -1, position_ = 0, batches_ = 0;
  bool ended_ = false;  // next_inputs said so: it is not asked again
};

}  // namespace q8
