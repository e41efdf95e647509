// Slice: starts/ends/axes/steps as inputs (opset >= 10) or attributes (opset < 10). Indices
// clamp as ONNX says: to [0, dim] for positive steps; for negative steps starts to [0, dim-1] and
// ends to [-1, dim-1].
#include <algorithm>
#include <limits>

#include "engine/ops/op.h"
#include "engine/ops/strided_copy.h"

namespace q8 {

namespace {
class Slice final : public Op {
 public:
  Slice(const Node& node, int64_t opset) : attr_form_(opset < 10) {
    if (attr_form_) {
      starts_ = node.attr_ints("starts");
      ends_ = node.attr_ints("ends");
      axes_ = node.attr_ints("axes");
    }
  }

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "Slice", "data");
    std::vector<int64_t> starts = starts_, ends = ends_, axes = axes_, steps;
    if (!attr_form_) {
      starts = required_input(in, 1, "Slice", "starts").to_int64s();
      ends = required_input(in, 2, "Slice", "ends").to_int64s();
      if (const Tensor* a = optional_input(in, 3)) axes = a->to_int64s();
      if (const Tensor* s = optional_input(in, 4)) steps = s->to_int64s();
    }
    check(starts.size() == ends.size(), "Slice: starts and ends differ in length");
    if (axes.empty())
      for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
    if (steps.empty()) steps.assign(starts.size(), 1);
    check(axes.size() == starts.size() && steps.size() == starts.size(), "Slice: starts, axes and steps differ in length");

    const int64_t rank = int64_t(x.rank());
    const std::vector<int64_t> in_strides = dense_strides(x.dims());
    Dims out_dims = x.dims();
    std::vector<int64_t> strides = in_strides;
    int64_t offset = 0;
    for (size_t i = 0; i < axes.size(); ++i) {
      const size_t a = size_t(normalize_axis(axes[i], rank, "Slice"));
      const int64_t dim = x.dim(a), step = steps[i];
      check(step != 0, "Slice: step 0 on axis " + std::to_string(a));
      int64_t s = starts[i], e = ends[i];
      if (s < 0) s += dim;
      if (e < 0 && e > std::numeric_limits<int64_t>::min() / 2) e += dim;
      if (step > 0) {
        s = std::clamp<int64_t>(s, 0, dim);
        e = std::clamp<int64_t>(e, 0, dim);
        out_dims[a] = e > s ? (e - s + step - 1) / step : 0;
      } else {
        // ONNX (unlike numpy): a start before the first element clamps to it.
        s = dim > 0 ? std::clamp<int64_t>(s, 0, dim - 1) : 0;
        e = std::clamp<int64_t>(e, -1, dim - 1);
        out_dims[a] = dim > 0 && s > e ? (s - e - step - 1) / -step : 0;
      }
      offset += s * in_strides[a];
      strides[a] = in_strides[a] * step;
    }
    Tensor y(x.dtype(), out_dims);
    if (y.numel() > 0) gather_strided(x, offset, strides, y);
    return {std::move(y)};
  }

 private:
  bool attr_form_;
  std::vector<int64_t> starts_, ends_, axes_;
};
}  // namespace

std::unique_ptr<Op> create_slice(const Node& node, const OpContext& ctx) { return std::make_unique<Slice>(node, ctx.opset); }

}  // namespace q8
