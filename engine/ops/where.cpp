// Where: output = condition ? X : Y, all three broadcast (numpy rules).
#include "engine/ops/elementwise.h"

namespace q8 {

namespace {

class Where final : public Op {
 public:
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& c = required_input(in, 0, "Where", "condition");
    const Tensor& x = required_input(in, 1, "Where", "X");
    const Tensor& y = required_input(in, 2, "Where", "Y");
    check(c.dtype() == DType::Bool, "Where: condition must be bool");
    check(x.dtype() == y.dtype(), "Where: X and Y have different types");
    Tensor out(x.dtype(), broadcast_dims(broadcast_dims(c.dims(), x.dims(), "Where"), y.dims(), "Where"));
    if (out.numel() == 0) return {std::move(out)};
    const BroadcastPlan plan = plan_broadcast(out.dims(), {&c.dims(), &x.dims(), &y.dims()});
    visit_dtype(x.dtype(), [&]<typename T>() {
      const bool* pc = c.data<bool>();
      const T* px = x.data<T>();
      const T* py = y.data<T>();
      T* po = out.data<T>();
      broadcast_loop<3>(plan, [&](int64_t o, const std::array<int64_t, 3>& off) {
        po[o] = pc[off[0]] ? px[off[1]] : py[off[2]];
      });
    });
    return {std::move(out)};
  }
};

}  // namespace

std::unique_ptr<Op> create_where(const Node&, const OpContext&) { return std::make_unique<Where>(); }

}  // namespace q8
