// Unsqueeze: inserts size-1 axes at the given positions of the output (attribute before
// opset 13, input from 13). A view.
#include <algorithm>

#include "engine/ops/op.h"

namespace q8 {

namespace {
class Unsqueeze final : public Op {
 public:
  explicit Unsqueeze(std::vector<int64_t> axes) : axes_(std::move(axes)) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "Unsqueeze", "data");
    std::vector<int64_t> axes = axes_.empty() ? required_input(in, 1, "Unsqueeze", "axes").to_int64s() : axes_;
    const int64_t out_rank = int64_t(x.rank() + axes.size());
    std::vector<bool> inserted(size_t(out_rank), false);
    for (int64_t a : axes) {
      a = normalize_axis(a, out_rank, "Unsqueeze");
      check(!inserted[size_t(a)], "Unsqueeze: axis " + std::to_string(a) + " is repeated");
      inserted[size_t(a)] = true;
    }
    Dims out;
    size_t next = 0;
    for (int64_t i = 0; i < out_rank; ++i) out.push_back(inserted[size_t(i)] ? 1 : x.dim(next++));
    return {x.reshaped(out)};
  }

 private:
  std::vector<int64_t> axes_;
};
}  // namespace

std::unique_ptr<Op> create_unsqueeze(const Node& node, const OpContext& ctx) {
  if (ctx.opset < 13) check(node.has("axes"), node.describe() + ": attribute 'axes' is required before opset 13");
  return std::make_unique<Unsqueeze>(ctx.opset < 13 ? node.attr_ints("axes") : std::vector<int64_t>{});
}

}  // namespace q8
