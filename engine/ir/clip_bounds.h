// Clip's bounds, wherever the opset puts them: inputs 1 and 2 from opset 11, attributes min and
// max before. An absent bound is nullopt (no limit on that side).
#pragma once

#include <optional>
#include <utility>

#include "engine/ir/graph.h"

namespace q8 {

using ClipBounds = std::pair<std::optional<float>, std::optional<float>>;

// nullopt when a bound input is not a constant float32 scalar.
std::optional<ClipBounds> clip_bounds(const Graph& graph, const Node& clip);

}  // namespace q8
