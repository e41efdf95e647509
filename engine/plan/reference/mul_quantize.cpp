// MulQuantize (domain q8): a float32 Mul with numpy broadcasting and the QuantizeLinear that alone
// reads it, in one op (docs/quantization.md, "A float Mul and its Q"): y_q = clamp(rne((a · b) /
// s_y), −128, 127), the product rounded to float32 first, then QuantizeLinear's own arithmetic
// (engine/cpu/quantize_int8.h), so the bytes are those of the two ops apart.
// Inputs: a, b float32. Attributes: y_scale (s_y).
#include <cmath>

#include "engine/cpu/quantize_int8.h"
#include "engine/ops/broadcast.h"
#include "engine/ops/op.h"

namespace q8 {

namespace {
class MulQuantize final : public SizedOp {
 public:
  explicit MulQuantize(const Node& node) : y_scale_(node.attr_float("y_scale", 0.0f)), name_(node.describe()) {
    check(std::isfinite(y_scale_) && y_scale_ > 0.0f, name_ + ": y_scale must be a positive finite value");
  }

  std::vector<TensorDesc> output_descs(const std::vector<TensorDesc>& in) const override {
    check(in.size() >= 2 && in[0].dtype == DType::Float32 && in[1].dtype == DType::Float32, name_ + ": a and b must be float32");
    return {{DType::Int8, broadcast_dims(in[0].dims, in[1].dims, "MulQuantize")}};
  }

  void run_into(const Inputs& in, std::vector<Tensor>& out) const override {
    Tensor& y = out[0];
    if (y.numel() == 0) return;
    Tensor product(DType::Float32, y.dims());
    const BroadcastPlan plan = plan_broadcast(y.dims(), {&in[0]->dims(), &in[1]->dims()});
    const float* pa = in[0]->data<float>();
    const float* pb = in[1]->data<float>();
    float* pp = product.data<float>();
    broadcast_loop<2>(plan, [&](int64_t i, const std::array<int64_t, 2>& off) { pp[i] = pa[off[0]] * pb[off[1]]; });
    quantize_int8(pp, y.data<int8_t>(), y.numel(), y_scale_, 0.0f);
  }

 private:
  float y_scale_;
  std::string name_;
};
}  // namespace

std::unique_ptr<Op> create_mul_quantize(const Node& node, const OpContext&) { return std::make_unique<MulQuantize>(node); }

}  // namespace q8
