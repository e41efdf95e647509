// QAdd (domain q8): INT8 Add with numpy broadcasting (docs/quantization.md, "Standalone INT8
// Add"): z_q = clamp(rne(fma((float)a_q, A, (float)b_q · B)), lo, hi).
// Inputs: a_q, b_q int8. Attributes: a_scale (A = s_a / s_z), b_scale (B = s_b / s_z), lo, hi.
#include "engine/ops/broadcast.h"
#include "engine/ops/op.h"
#include "engine/plan/requantize.h"

namespace q8 {

namespace {
class QAdd final : public Op {
 public:
  explicit QAdd(const Node& node)
      : a_scale_(node.attr_float("a_scale", 0.0f)), b_scale_(node.attr_float("b_scale", 0.0f)),
        bounds_{int32_t(node.attr_int("lo", -128)), int32_t(node.attr_int("hi", 127))}, name_(node.describe()) {
    check(bounds_.lo >= -128 && bounds_.lo <= bounds_.hi && bounds_.hi <= 127, name_ + ": clamp bounds are not inside [-128, 127]");
  }

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& a = required_input(in, 0, "QAdd", "a");
    const Tensor& b = required_input(in, 1, "QAdd", "b");
    check(a.dtype() == DType::Int8 && b.dtype() == DType::Int8, name_ + ": a and b must be int8");
    const Dims out = broadcast_dims(a.dims(), b.dims(), "QAdd");
    Tensor z(DType::Int8, out);
    if (z.numel() == 0) return {std::move(z)};
    const BroadcastPlan plan = plan_broadcast(out, {&a.dims(), &b.dims()});
    const int8_t* pa = a.data<int8_t>();
    const int8_t* pb = b.data<int8_t>();
    int8_t* pz = z.data<int8_t>();
    broadcast_loop<2>(plan, [&](int64_t i, const std::array<int64_t, 2>& off) {
      pz[i] = requantize_add(pa[off[0]], a_scale_, pb[off[1]], b_scale_, bounds_);
    });
    return {std::move(z)};
  }

 private:
  float a_scale_, b_scale_;
  ClampBounds bounds_;
  std::string name_;
};
}  // namespace

std::unique_ptr<Op> create_qadd(const Node& node, const OpContext&) { return std::make_unique<QAdd>(node); }

}  // namespace q8
