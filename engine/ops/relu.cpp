// Relu: y = max(x, 0), on float32 and float16, and on the signed integer types (opset 14): a plan
// runs it on int8 between fused ops, where it commutes with quantization.
#include "engine/ops/elementwise.h"

namespace q8 {

namespace {

class Relu final : public Op {
 public:
  Relu() : on_floats_(make_unary("Relu", [](float x) { return x > 0.0f ? x : 0.0f; })) {}

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "Relu", "X");
    if (x.dtype() != DType::Int8 && x.dtype() != DType::Int32 && x.dtype() != DType::Int64) return on_floats_->run(in);
    Tensor y = Tensor::uninitialized(x.dtype(), x.dims());
    visit_numeric(x.dtype(), [&]<typename T>() {
      const T* src = x.data<T>();
      T* dst = y.data<T>();
      for (int64_t i = 0; i < x.numel(); ++i) dst[i] = src[i] > T(0) ? src[i] : T(0);
    });
    return {std::move(y)};
  }

 private:
  std::unique_ptr<Op> on_floats_;
};

}  // namespace

std::unique_ptr<Op> create_relu(const Node&, const OpContext&) { return std::make_unique<Relu>(); }

}  // namespace q8
