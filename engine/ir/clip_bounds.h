// Clip's bounds, wherever the opset puts them, as the CPU Clip reads them: attributes min and max
// before opset 11, inputs 1 and 2 from opset 11. An absent bound is nullopt (no limit on that side).
#pragma once

#include <functional>
#include <optional>
#include <utility>

#include "engine/ir/graph_index.h"

namespace q8 {

using ClipBounds = std::pair<std::optional<float>, std::optional<float>>;

// nullopt when a bound input is not a constant float32 scalar; constant(i) gives input i's value
// when it is constant, else nullptr.
std::optional<ClipBounds> clip_bounds(const Node& clip, int64_t opset, const std::function<const Tensor*(size_t)>& constant);
// The same for a node of index's graph.
std::optional<ClipBounds> clip_bounds(const GraphIndex& index, const Node& clip);

}  // namespace q8
