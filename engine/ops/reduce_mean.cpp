// ReduceMean: the mean of data over the given axes (all axes when none are given); keepdims keeps
// them as size 1. Axes are an attribute before opset 18 and input 1 from opset 18.
#include "engine/ops/reduce.h"

namespace q8 {

namespace {
class ReduceMean final : public Op {
 public:
  explicit ReduceMean(ReduceAttrs attrs) : attrs_(std::move(attrs)) {}
  std::vector<Tensor> run(const Inputs& in) const override { return {reduce(in, attrs_, ReduceKind::Mean, "ReduceMean")}; }

 private:
  ReduceAttrs attrs_;
};
}  // namespace

std::unique_ptr<Op> create_reduce_mean(const Node& node, const OpContext& ctx) {
  return std::make_unique<ReduceMean>(read_reduce_attrs(node, ctx.opset >= 18));
}

}  // namespace q8
