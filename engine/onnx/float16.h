// Models published in FP16 (docs/ops.md, "Float16 models"): the import computes them in FP32.
#pragma once

#include <string>

#include "engine/ir/graph.h"

namespace q8 {

// Rewrites graph to compute in float32 where it holds float16: float16 initializers and Constant
// values widened, Cast/ConstantOfShape/EyeLike producing float16 made to produce float32, value
// types widened, and float16 graph inputs and outputs kept float16 behind a Cast at the boundary.
// Subgraphs too. Returns what it did in one line ("" when the model holds no float16).
std::string float16_to_float32(Graph& graph);

}  // namespace q8
