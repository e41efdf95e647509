// fold_constants: evaluates every node whose inputs are all constants (initializers, Constant
// outputs) and stores its outputs as initializers. When every graph input has a static shape, Shape
// nodes are constants too, so shape subgraphs (Shape → Gather → Concat → Reshape) fold away.
#pragma once

#include <cstddef>

#include "engine/ir/graph.h"

namespace q8 {

struct ConstantFoldReport {
  size_t folded = 0;         // nodes replaced by initializers
  bool static_shapes = false;  // whether Shape nodes could be folded
};

ConstantFoldReport fold_constants(Graph& graph);

}  // namespace q8
