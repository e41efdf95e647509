// Adding constant tensors to a graph, and dropping those nothing reads any more (Graph::constant
// reads them).
#pragma once

#include <string>

#include "engine/ir/graph.h"

namespace q8 {

// Adds an initializer under a name no value of the graph uses yet (base, base_1, …); returns it.
std::string add_initializer(Graph& graph, const std::string& base, Tensor value);
// Erases every initializer that no node reads and no graph output is.
void drop_unused_initializers(Graph& graph);

}  // namespace q8
