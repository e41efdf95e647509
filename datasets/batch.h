// One batch of model inputs as the loops that run a model over data receive it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/ir/tensor_map.h"

namespace q8 {

struct Batch {
  TensorMap inputs;
  std::vector<std::optional<int64_t>> labels;
  std::vector<size_t> indices;  // each sample's index in the dataset
  int64_t count = 0;       // samples in this batch
  int64_t position = 0;    // samples of the order delivered so far, this batch included
};

}  // namespace q8
