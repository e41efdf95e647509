// Raising a graph's opset through libonnx's version converter (per-axis DequantizeLinear needs 13).
#pragma once

#include "engine/ir/graph.h"

namespace q8 {

// Converts graph to the default-domain opset `target` (no-op when already there or newer).
// Error naming both opsets and the converter's reason when it cannot.
void upgrade_opset(Graph& graph, int64_t target);

}  // namespace q8
