// Adding constant tensors to a graph, and counting a value's readers (Graph::constant reads them).
#pragma once

#include <string>

#include "engine/ir/graph.h"

namespace q8 {

// Adds an initializer under a name no value of the graph uses yet (base, base_1, …); returns it.
std::string add_initializer(Graph& graph, const std::string& base, Tensor value);
// Nodes reading value (and whether a graph output is value).
int consumers(const Graph& graph, const std::string& value);

}  // namespace q8
