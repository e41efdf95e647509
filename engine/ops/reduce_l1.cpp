// ReduceL1: the sum of absolute values of data over the given axes (all axes when none are given);
// keepdims keeps them as size 1. Axes are an attribute before opset 18 and input 1 from opset 18.
#include "engine/ops/reduce.h"

namespace q8 {

std::unique_ptr<Op> create_reduce_l1(const Node& node, const OpContext& ctx) {
  return make_reduce(node, ctx, ReduceKind::L1, "ReduceL1", 18);
}

}  // namespace q8
