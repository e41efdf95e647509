// Squeeze: removes the given axes (attribute before opset 13, input from 13), or every size-1
// axis when none are given. A view.
#include <algorithm>

#include "engine/ops/op.h"

namespace q8 {

namespace {
class Squeeze final : public Op {
 public:
  explicit Squeeze(std::optional<std::vector<int64_t>> axes) : axes_(std::move(axes)) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "Squeeze", "data");
    std::optional<std::vector<int64_t>> axes = axes_;
    if (!axes && optional_input(in, 1)) axes = in[1]->to_int64s();
    const int64_t r = int64_t(x.rank());
    std::vector<bool> drop(x.rank(), false);
    if (axes) {
      for (int64_t a : *axes) {
        a = normalize_axis(a, r, "Squeeze");
        check(x.dim(size_t(a)) == 1, "Squeeze: axis " + std::to_string(a) + " of shape " + dims_to_string(x.dims()) + " is not 1");
        drop[size_t(a)] = true;
      }
    } else {
      for (size_t i = 0; i < x.rank(); ++i) drop[i] = x.dim(i) == 1;
    }
    Dims out;
    for (size_t i = 0; i < x.rank(); ++i)
      if (!drop[i]) out.push_back(x.dim(i));
    return {x.reshaped(out)};
  }

 private:
  std::optional<std::vector<int64_t>> axes_;
};
}  // namespace

std::unique_ptr<Op> create_squeeze(const Node& node, const OpContext& ctx) {
  std::optional<std::vector<int64_t>> axes;
  if (ctx.opset < 13 && node.has("axes")) axes = node.attr_ints("axes");
  return std::make_unique<Squeeze>(axes);
}

}  // namespace q8
