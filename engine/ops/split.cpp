// Split: cuts input along axis into the 'split' sizes (attribute before opset 13, input from
// 13), or into equal parts, one per output (the last smaller when uneven, opset 18 style).
#include <cstring>

#include "engine/ops/op.h"

namespace q8 {

namespace {
class Split final : public Op {
 public:
  Split(int64_t axis, std::vector<int64_t> split, size_t outputs) : axis_(axis), split_(std::move(split)), outputs_(outputs) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "Split", "input");
    const size_t axis = size_t(normalize_axis(axis_, int64_t(x.rank()), "Split"));
    std::vector<int64_t> sizes = split_;
    if (sizes.empty() && optional_input(in, 1)) sizes = in[1]->to_int64s();
    const int64_t dim = x.dim(axis);
    if (sizes.empty()) {
      const int64_t part = (dim + int64_t(outputs_) - 1) / int64_t(outputs_);
      for (size_t i = 0; i < outputs_; ++i) sizes.push_back(std::max<int64_t>(0, std::min(part, dim - part * int64_t(i))));
    }
    check(sizes.size() == outputs_, "Split: " + std::to_string(sizes.size()) + " sizes for " + std::to_string(outputs_) + " outputs");
    int64_t total = 0;
    for (int64_t s : sizes) total += s;
    check(total == dim, "Split: sizes add up to " + std::to_string(total) + ", axis " + std::to_string(axis) +
                            " of shape " + dims_to_string(x.dims()) + " has " + std::to_string(dim));
    int64_t outer = 1;
    for (size_t d = 0; d < axis; ++d) outer *= x.dim(d);
    const size_t inner = size_t(x.numel() / std::max<int64_t>(outer * dim, 1)) * dtype_size(x.dtype());
    std::vector<Tensor> out;
    size_t col = 0;
    for (int64_t s : sizes) {
      Dims d = x.dims();
      d[axis] = s;
      Tensor y(x.dtype(), d);
      for (int64_t o = 0; o < outer; ++o)
        copy_bytes(y.raw() + size_t(o) * size_t(s) * inner, x.raw() + size_t(o) * size_t(dim) * inner + col, size_t(s) * inner);
      col += size_t(s) * inner;
      out.push_back(std::move(y));
    }
    return out;
  }

 private:
  int64_t axis_;
  std::vector<int64_t> split_;
  size_t outputs_;
};
}  // namespace

std::unique_ptr<Op> create_split(const Node& node, const OpContext& ctx) {
  if (node.has("num_outputs"))
    check(node.attr_int("num_outputs", 0) == int64_t(node.outputs.size()),
          node.describe() + ": num_outputs is " + std::to_string(node.attr_int("num_outputs", 0)) + " but the node has " +
              std::to_string(node.outputs.size()) + " outputs");
  return std::make_unique<Split>(node.attr_int("axis", 0), ctx.opset < 13 ? node.attr_ints("split") : std::vector<int64_t>{},
                                 node.outputs.size());
}

}  // namespace q8
