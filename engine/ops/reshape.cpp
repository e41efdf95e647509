// Reshape: a view with the shape input (opset >= 5) or the shape attribute (opset < 5).
// 0 copies the input dimension (unless allowzero = 1), -1 is inferred.
#include "engine/ops/op.h"

namespace q8 {

Dims resolve_reshape(const Dims& input, const std::vector<int64_t>& shape, bool allow_zero) {
  Dims out(shape.size());
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t v = shape[i];
    if (v == 0 && !allow_zero) {
      check(i < input.size(), "Reshape: 0 at position " + std::to_string(i) + " has no input dimension to copy");
      v = input[i];
    }
    if (v == -1) {
      check(infer < 0, "Reshape: more than one -1 in shape");
      infer = int64_t(i);
      continue;
    }
    check(v >= 0, "Reshape: invalid dimension " + std::to_string(v));
    out[i] = v;
    known *= v;
  }
  const int64_t total = numel(input);
  if (infer >= 0) {
    check(known != 0 && total % known == 0, "Reshape: cannot infer -1 reshaping " + dims_to_string(input));
    out[size_t(infer)] = total / known;
  }
  check(numel(out) == total, "Reshape: cannot reshape " + dims_to_string(input) + " (" + std::to_string(total) +
                                 " elements) to " + dims_to_string(out));
  return out;
}

namespace {
class Reshape final : public Op {
 public:
  Reshape(std::vector<int64_t> attr_shape, bool allow_zero) : attr_shape_(std::move(attr_shape)), allow_zero_(allow_zero) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "Reshape", "data");
    const std::vector<int64_t> shape = attr_shape_.empty() ? required_input(in, 1, "Reshape", "shape").to_int64s() : attr_shape_;
    return {x.reshaped(resolve_reshape(x.dims(), shape, allow_zero_))};
  }

 private:
  std::vector<int64_t> attr_shape_;
  bool allow_zero_;
};
}  // namespace

std::unique_ptr<Op> create_reshape(const Node& node, const OpContext& ctx) {
  return std::make_unique<Reshape>(ctx.opset < 5 ? node.attr_ints("shape") : std::vector<int64_t>{},
                                   node.attr_int("allowzero", 0) != 0);
}

}  // namespace q8
