// OneHot: output[…, i at axis, …] = values[1] where indices[…] (negative counting from depth) is
// i, else values[0]. depth is a scalar; the new axis goes at `axis` (−1, the last, by default);
// an index outside [−depth, depth) gives a row of values[0].
#include <cmath>

#include "engine/ops/indexing.h"
#include "engine/ops/op.h"

namespace q8 {

namespace {

class OneHot final : public Op {
 public:
  explicit OneHot(int64_t axis) : axis_(axis) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& indices = required_input(in, 0, "OneHot", "indices");
    const Tensor& depth_t = required_input(in, 1, "OneHot", "depth");
    const Tensor& values = required_input(in, 2, "OneHot", "values");
    check(indices.rank() >= 1, "OneHot: indices must have rank ≥ 1, got a scalar");
    check(depth_t.numel() == 1, "OneHot: depth must hold one value, got " + dims_to_string(depth_t.dims()));
    check(values.numel() == 2, "OneHot: values must hold two values (off, on), got " + dims_to_string(values.dims()));
    const int64_t depth = int64_t(depth_t.element_as_double(0));
    check(depth > 0, "OneHot: depth must be positive, got " + std::to_string(depth));
    const size_t axis = size_t(normalize_axis(axis_, int64_t(indices.rank()) + 1, "OneHot"));
    Dims out = indices.dims();
    out.insert(out.begin() + long(axis), depth);
    Tensor y(values.dtype(), out);
    const size_t elem = dtype_size(values.dtype());
    const int64_t outer = span_size(indices.dims(), 0, axis), inner = span_size(indices.dims(), axis, indices.rank());
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t d = 0; d < depth; ++d)
        for (int64_t i = 0; i < inner; ++i) {
          double v = indices.element_as_double(o * inner + i);
          v = std::trunc(v);
          if (v < 0) v += double(depth);
          const bool on = v == double(d);
          copy_bytes(y.raw() + size_t((o * depth + d) * inner + i) * elem, values.raw() + (on ? elem : 0), elem);
        }
    return {std::move(y)};
  }

 private:
  int64_t axis_;
};

}  // namespace

std::unique_ptr<Op> create_one_hot(const Node& node, const OpContext&) { return std::make_unique<OneHot>(node.attr_int("axis", -1)); }

}  // namespace q8
