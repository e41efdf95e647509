// The element type of a graph value: declared (inputs, outputs, value_info, initializers,
// Constant nodes), or followed through the ops that decide it (Shape and Size give int64, Cast
// its `to`, comparisons bool, ArgMax int64; every other op its first input's type).
#pragma once

#include <string>

#include "engine/ir/graph.h"

namespace q8 {

// DType::Undefined when nothing decides it.
DType value_dtype(const Graph& graph, const std::string& value);

}  // namespace q8
