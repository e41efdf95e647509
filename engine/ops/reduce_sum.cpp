// ReduceSum: the sum of data over the given axes (all axes when none are given); keepdims keeps
// them as size 1. Axes are an attribute before opset 13 and input 1 from opset 13.
#include "engine/ops/reduce.h"

namespace q8 {

std::unique_ptr<Op> create_reduce_sum(const Node& node, const OpContext& ctx) {
  return make_reduce(node, ctx, ReduceKind::Sum, "ReduceSum", 13);
}

}  // namespace q8
