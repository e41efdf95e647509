// LogSoftmax: y = x − max − ln Σ exp(x − max) over each row (softmax.h: one axis from opset 13,
// the input coerced to 2-D at axis before), the sum in double in index order.
#include <cmath>

#include "engine/ops/elementwise.h"
#include "engine/ops/softmax.h"

namespace q8 {

namespace {

class LogSoftmax final : public Op {
 public:
  explicit LogSoftmax(SoftmaxAxis axis) : axis_(axis) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = float_input(in, 0, "LogSoftmax", "input");
    const auto [outer, len, inner] = softmax_rows(x.dims(), axis_);
    Tensor y = Tensor::uninitialized(DType::Float32, x.dims());
    const float* px = x.data<float>();
    float* py = y.data<float>();
    for (int64_t r = 0; r < outer * inner; ++r) {
      const int64_t o = r / inner, i = r % inner;
      const float* src = px + o * len * inner + i;
      float* dst = py + o * len * inner + i;
      float max = -INFINITY;
      for (int64_t j = 0; j < len; ++j) max = std::max(max, src[j * inner]);
      double sum = 0;
      for (int64_t j = 0; j < len; ++j) sum += std::exp(double(src[j * inner] - max));
      const float log_sum = float(std::log(sum));
      for (int64_t j = 0; j < len; ++j) dst[j * inner] = src[j * inner] - max - log_sum;
    }
    return {std::move(y)};
  }

 private:
  SoftmaxAxis axis_;
};

}  // namespace

std::unique_ptr<Op> create_log_softmax(const Node& node, const OpContext& ctx) {
  return std::make_unique<LogSoftmax>(softmax_axis(node, ctx.opset));
}

}  // namespace q8
