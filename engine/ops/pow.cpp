// Pow: Z = X ^ Y with numpy broadcasting; Z has X's type, Y may be of another numeric type. On
// float32, a square is x · x and a cube x · x · x, as ONNX Runtime computes them (and the OpenCL
// kernel): one or two IEEE products, where std::pow's result may round a tie otherwise.
#include "engine/ops/elementwise.h"

namespace q8 {

namespace {

class Pow final : public Op {
 public:
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "Pow", "X");
    const Tensor& y = required_input(in, 1, "Pow", "Y");
    if (x.dtype() == DType::Float32 && y.dtype() == DType::Float32)
      return {broadcast_binary<float, float>(x, y, DType::Float32, "Pow", [](float a, float b) {
        return b == 2.0f ? a * a : b == 3.0f ? a * a * a : std::pow(a, b);
      })};
    check(x.dtype() == DType::Float32 || x.dtype() == DType::Int32 || x.dtype() == DType::Int64,
          "Pow: base type " + std::string(dtype_name(x.dtype())) + " is not supported");
    Tensor z(x.dtype(), broadcast_dims(x.dims(), y.dims(), "Pow"));
    if (z.numel() == 0) return {std::move(z)};
    const BroadcastPlan plan = plan_broadcast(z.dims(), {&x.dims(), &y.dims()});
    visit_numeric(x.dtype(), [&]<typename T>() {
      T* out = z.data<T>();
      broadcast_loop<2>(plan, [&](int64_t o, const std::array<int64_t, 2>& off) {
        out[o] = T(std::pow(x.element_as_double(off[0]), y.element_as_double(off[1])));
      });
    });
    return {std::move(z)};
  }
};

}  // namespace

std::unique_ptr<Op> create_pow(const Node&, const OpContext&) { return std::make_unique<Pow>(); }

}  // namespace q8
