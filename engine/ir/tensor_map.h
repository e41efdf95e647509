// Named tensors: a graph's inputs or outputs, a batch of samples, by value name.
#pragma once

#include <map>
#include <string>

#include "engine/ir/tensor.h"

namespace q8 {

using TensorMap = std::map<std::string, Tensor>;

}  // namespace q8
