// Constant: outputs its 'value' tensor, or a tensor made from value_float(s)/value_int(s).
#include "engine/ops/op.h"

namespace q8 {

namespace {
class Constant final : public Op {
 public:
  explicit Constant(Tensor value) : value_(std::move(value)) {}
  std::vector<Tensor> run(const Inputs&) const override { return {value_}; }

 private:
  Tensor value_;
};
}  // namespace

Tensor constant_value(const Node& node) {
  if (const Tensor* t = node.attr_tensor("value")) return *t;
  if (node.has("value_float")) return Tensor::scalar<float>(node.attr_float("value_float", 0));
  if (node.has("value_int")) return Tensor::scalar<int64_t>(node.attr_int("value_int", 0));
  if (node.has("value_floats")) {
    auto v = node.attr_floats("value_floats");
    return Tensor::from_vector<float>({int64_t(v.size())}, v);
  }
  if (node.has("value_ints")) {
    auto v = node.attr_ints("value_ints");
    return Tensor::from_vector<int64_t>({int64_t(v.size())}, v);
  }
  throw Error(node.describe() + ": no supported value attribute (value, value_float(s), value_int(s))");
}

std::unique_ptr<Op> create_constant(const Node& node, const OpContext&) { return std::make_unique<Constant>(constant_value(node)); }

}  // namespace q8
