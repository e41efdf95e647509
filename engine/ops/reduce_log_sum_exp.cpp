// ReduceLogSumExp: ln Σ eˣ of data over the given axes (all axes when none are given), computed as
// max + ln Σ e^(x − max); keepdims keeps them as size 1. Axes are an attribute before opset 18 and
// input 1 from opset 18.
#include "engine/ops/reduce.h"

namespace q8 {

std::unique_ptr<Op> create_reduce_log_sum_exp(const Node& node, const OpContext& ctx) {
  return make_reduce(node, ctx, ReduceKind::LogSumExp, "ReduceLogSumExp", 18);
}

}  // namespace q8
