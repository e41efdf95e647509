// QAdd (domain q8): INT8 Add with numpy broadcasting (docs/quantization.md, "Standalone INT8
// Add"): z_q = clamp(rne(fma((float)a_q, A, (float)b_q · B)), lo, hi).
// Inputs: a_q, b_q int8. Attributes: a_scale (A = s_a / s_z), b_scale (B = s_b / s_z), lo, hi.
#include "engine/ops/broadcast.h"
#include "engine/ops/op.h"
#include "engine/plan/requantize.h"

namespace q8 {

namespace {
class QAdd final : public SizedOp {
 public:
  explicit QAdd(const Node& node)
      : a_scale_(node.attr_float("a_scale", 0.0f)), b_scale_(node.attr_float("b_scale", 0.0f)),
        bounds_{int32_t(node.attr_int("lo", -128)), int32_t(node.attr_int("hi", 127))}, name_(node.describe()) {
    check(bounds_.lo >= -128 && bounds_.lo <= bounds_.hi && bounds_.hi <= 127, name_ + ": clamp bounds are not inside [-128, 127]");
  }

  std::vector<TensorDesc> output_descs(const std::vector<TensorDesc>& in) const override {
    check(in.size() >= 2 && in[0].dtype == DType::Int8 && in[1].dtype == DType::Int8, name_ + ": a and b must be int8");
    return {{DType::Int8, broadcast_dims(in[0].dims, in[1].dims, "QAdd")}};
  }

  void run_into(const Inputs& in, std::vector<Tensor>& out) const override {
    const Tensor& a = *in[0];
    const Tensor& b = *in[1];
    Tensor& z = out[0];
    if (z.numel() == 0) return;
    const BroadcastPlan plan = plan_broadcast(z.dims(), {&a.dims(), &b.dims()});
    const int8_t* pa = a.data<int8_t>();
    const int8_t* pb = b.data<int8_t>();
    int8_t* pz = z.data<int8_t>();
    broadcast_loop<2>(plan, [&](int64_t i, const std::array<int64_t, 2>& off) {
      pz[i] = requantize_add(pa[off[0]], a_scale_, pb[off[1]], b_scale_, bounds_);
    });
  }

 private:
  float a_scale_, b_scale_;
  ClampBounds bounds_;
  std::string name_;
};
}  // namespace

std::unique_ptr<Op> create_qadd(const Node& node, const OpContext&) { return std::make_unique<QAdd>(node); }

}  // namespace q8
