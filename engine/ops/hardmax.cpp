// Hardmax: 1 at the first largest value of each row (softmax.h's rows), 0 elsewhere.
#include "engine/ops/elementwise.h"
#include "engine/ops/softmax.h"

namespace q8 {

namespace {

class Hardmax final : public Op {
 public:
  explicit Hardmax(SoftmaxAxis axis) : axis_(axis) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = float_input(in, 0, "Hardmax", "input");
    const auto [outer, len, inner] = softmax_rows(x.dims(), axis_);
    Tensor y(DType::Float32, x.dims());
    const float* px = x.data<float>();
    for (int64_t r = 0; r < outer * inner; ++r) {
      const int64_t base = (r / inner) * len * inner + r % inner;
      int64_t best = 0;
      for (int64_t j = 1; j < len; ++j)
        if (px[base + j * inner] > px[base + best * inner]) best = j;
      if (len > 0) y.data<float>()[base + best * inner] = 1.0f;
    }
    return {std::move(y)};
  }

 private:
  SoftmaxAxis axis_;
};

}  // namespace

std::unique_ptr<Op> create_hardmax(const Node& node, const OpContext& ctx) { return std::make_unique<Hardmax>(softmax_axis(node, ctx.opset)); }

}  // namespace q8
