// Flatten: a 2-D view [d0·…·d(axis-1), d(axis)·…·d(n-1)]; axis 1 by default, negative allowed.
#include "engine/ops/op.h"

namespace q8 {

namespace {
class Flatten final : public Op {
 public:
  explicit Flatten(int64_t axis) : axis_(axis) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "Flatten", "input");
    const int64_t r = int64_t(x.rank());
    int64_t axis = axis_ < 0 ? axis_ + r : axis_;
    check(axis >= 0 && axis <= r, "Flatten: axis " + std::to_string(axis_) + " is out of range for rank " + std::to_string(r));
    int64_t outer = 1, inner = 1;  // products of the dims, so a 0 on one side leaves the other whole
    for (int64_t i = 0; i < r; ++i) (i < axis ? outer : inner) *= x.dim(size_t(i));
    return {x.reshaped({outer, inner})};
  }

 private:
  int64_t axis_;
};
}  // namespace

std::unique_ptr<Op> create_flatten(const Node& node, const OpContext&) {
  return std::make_unique<Flatten>(node.attr_int("axis", 1));
}

}  // namespace q8
