// Shape: the input's dimensions as int64, sliced by start/end (opset 15) with clamping.
#include <algorithm>

#include "engine/ops/op.h"

namespace q8 {

namespace {
class ShapeOp final : public Op {
 public:
  ShapeOp(int64_t start, std::optional<int64_t> end) : start_(start), end_(end) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Dims& d = required_input(in, 0, "Shape", "data").dims();
    const int64_t r = int64_t(d.size());
    auto clamp = [r](int64_t i) { return std::clamp(i < 0 ? i + r : i, int64_t{0}, r); };
    const int64_t b = clamp(start_), e = end_ ? clamp(*end_) : r;
    std::vector<int64_t> dims(d.begin() + b, d.begin() + std::max(b, e));
    return {Tensor::from_vector<int64_t>({int64_t(dims.size())}, dims)};
  }
  bool reads_values(size_t) const override { return false; }

 private:
  int64_t start_;
  std::optional<int64_t> end_;
};
}  // namespace

std::unique_ptr<Op> create_shape(const Node& node, const OpContext&) {
  std::optional<int64_t> end;
  if (node.has("end")) end = node.attr_int("end", 0);
  return std::make_unique<ShapeOp>(node.attr_int("start", 0), end);
}

}  // namespace q8
