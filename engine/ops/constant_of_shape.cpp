// ConstantOfShape: a tensor of the shape input filled with 'value' (one element; float 0 by default).
#include <cstring>

#include "engine/ops/op.h"

namespace q8 {

namespace {
class ConstantOfShape final : public Op {
 public:
  explicit ConstantOfShape(Tensor value) : value_(std::move(value)) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Dims dims = required_input(in, 0, "ConstantOfShape", "input").to_int64s();
    Tensor y(value_.dtype(), dims);
    const size_t elem = dtype_size(value_.dtype());
    for (int64_t i = 0; i < y.numel(); ++i) copy_bytes(y.raw() + size_t(i) * elem, value_.raw(), elem);
    return {std::move(y)};
  }

 private:
  Tensor value_;
};
}  // namespace

std::unique_ptr<Op> create_constant_of_shape(const Node& node, const OpContext&) {
  Tensor value = Tensor::scalar<float>(0.0f);
  if (const Tensor* t = node.attr_tensor("value")) {
    check(t->numel() == 1, node.describe() + ": 'value' must hold one element");
    value = *t;
  }
  return std::make_unique<ConstantOfShape>(value);
}

}  // namespace q8
