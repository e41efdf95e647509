// ReduceSum: the sum of data over the given axes (all axes when none are given); keepdims keeps
// them as size 1. Axes are an attribute before opset 13 and input 1 from opset 13.
#include "engine/ops/reduce.h"

namespace q8 {

namespace {
class ReduceSum final : public Op {
 public:
  explicit ReduceSum(ReduceAttrs attrs) : attrs_(std::move(attrs)) {}
  std::vector<Tensor> run(const Inputs& in) const override { return {reduce(in, attrs_, ReduceKind::Sum, "ReduceSum")}; }

 private:
  ReduceAttrs attrs_;
};
}  // namespace

std::unique_ptr<Op> create_reduce_sum(const Node& node, const OpContext& ctx) {
  return std::make_unique<ReduceSum>(read_reduce_attrs(node, ctx.opset >= 13));
}

}  // namespace q8
