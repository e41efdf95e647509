// Softmax: y = exp(x − max) / Σ exp(x − max). Opset >= 13: along one axis (default −1).
// Opset < 13: over the input coerced to 2-D at axis (default 1), i.e. over all dims from axis.
#include <cmath>

#include "engine/cpu/parallel.h"
#include "engine/ops/elementwise.h"

namespace q8 {

namespace {
class Softmax final : public Op {
 public:
  Softmax(int64_t axis, bool coerce_2d) : axis_(axis), coerce_2d_(coerce_2d) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = float_input(in, 0, "Softmax", "input");
    const int64_t rank = int64_t(x.rank());
    const size_t axis = size_t(normalize_axis(axis_, rank, "Softmax"));
    int64_t outer = 1, len = 1, inner = 1;
    for (size_t d = 0; d < x.rank(); ++d) {
      if (d < axis) outer *= x.dim(d);
      else if (d == axis || coerce_2d_) len *= x.dim(d);
      else inner *= x.dim(d);
    }
    Tensor y(DType::Float32, x.dims());
    const float* px = x.data<float>();
    float* py = y.data<float>();
    parallel_for(outer * inner, std::max<int64_t>(1, 32768 / std::max<int64_t>(len, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t o = r / inner, i = r % inner;
      const float* src = px + o * len * inner + i;
      float* dst = py + o * len * inner + i;
      float max = -INFINITY;
      for (int64_t j = 0; j < len; ++j) max = std::max(max, src[j * inner]);
      double sum = 0;
      for (int64_t j = 0; j < len; ++j) sum += dst[j * inner] = std::exp(src[j * inner] - max);
      const float scale = float(1.0 / sum);
      for (int64_t j = 0; j < len; ++j) dst[j * inner] *= scale;
    }
    });
    return {std::move(y)};
  }

 private:
  int64_t axis_;
  bool coerce_2d_;
};
}  // namespace

std::unique_ptr<Op> create_softmax(const Node& node, const OpContext& ctx) {
  const bool coerce = ctx.opset < 13;
  return std::make_unique<Softmax>(node.attr_int("axis", coerce ? 1 : -1), coerce);
}

}  // namespace q8
