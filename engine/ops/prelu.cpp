// PRelu: y = x if x >= 0 else slope · x, slope broadcast to X (unidirectionally).
#include "engine/ops/elementwise.h"

namespace q8 {

namespace {

class PRelu final : public Op {
 public:
  explicit PRelu(int64_t opset) : opset_(opset) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = float_input(in, 0, "PRelu", "X");
    Tensor slope = float_input(in, 1, "PRelu", "slope");
    // Before opset 7 a 1-D slope of C values applies per channel (axis 1).
    if (opset_ < 7 && slope.rank() == 1 && x.rank() > 2 && slope.dim(0) == x.dim(1) && slope.dim(0) != 1) {
      Dims d(x.rank() - 1, 1);
      d[0] = slope.dim(0);
      slope = slope.reshaped(d);
    }
    Tensor y = broadcast_binary<float, float>(x, slope, DType::Float32, "PRelu",
                                              [](float v, float s) { return v >= 0.0f ? v : s * v; });
    check(y.dims() == x.dims(), "PRelu: slope of shape " + dims_to_string(slope.dims()) +
                                    " does not broadcast to X of shape " + dims_to_string(x.dims()));
    return {std::move(y)};
  }

 private:
  int64_t opset_;
};

}  // namespace

std::unique_ptr<Op> create_prelu(const Node&, const OpContext& ctx) { return std::make_unique<PRelu>(ctx.opset); }

}  // namespace q8
