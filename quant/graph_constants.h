// Reading and adding constant tensors of a graph: initializers and Constant nodes alike.
#pragma once

#include <string>

#include "engine/ir/graph.h"

namespace q8 {

// The value of name if it is an initializer or a Constant node's output, else nullptr.
const Tensor* find_constant(const Graph& graph, const std::string& name);
// Adds an initializer under a name no value of the graph uses yet (base, base_1, …); returns it.
std::string add_initializer(Graph& graph, const std::string& base, Tensor value);
// Nodes reading value (and whether a graph output is value).
int consumers(const Graph& graph, const std::string& value);

}  // namespace q8
