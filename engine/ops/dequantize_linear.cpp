// DequantizeLinear: y = (x − x_zero_point) · x_scale, per tensor or per axis (opset 13; axis 1
// by default). x is int8, uint8 or int32 (int32 requires a zero point of 0). See
// docs/quantization.md.
#include <algorithm>

#include "engine/cpu/parallel.h"
#include "engine/ops/broadcast.h"
#include "engine/ops/op.h"
#include "engine/ops/quantize_common.h"

namespace q8 {

namespace {
class DequantizeLinear final : public Op {
 public:
  explicit DequantizeLinear(int64_t axis) : axis_(axis) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "DequantizeLinear", "x");
    const Tensor& scale = required_input(in, 1, "DequantizeLinear", "x_scale");
    const Tensor* zp = optional_input(in, 2);
    check(x.dtype() == DType::Int8 || x.dtype() == DType::Uint8 || x.dtype() == DType::Int32,
          "DequantizeLinear: x must be int8, uint8 or int32, got " + std::string(dtype_name(x.dtype())));
    if (zp) check(zp->dtype() == x.dtype(), "DequantizeLinear: zero point type differs from x");
    const QuantLayout l = quant_layout(x, scale, zp, axis_, "DequantizeLinear");
    Tensor y = Tensor::uninitialized(DType::Float32, x.dims());
    visit_numeric(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      const float* ps = scale.data<float>();
      float* py = y.data<float>();
      for_each_channel_span(l, [&](int64_t c, int64_t b, int64_t e) {
        const int32_t z = zp ? int32_t(zp->data<T>()[c]) : 0;
        for (int64_t i = b; i < e; ++i) py[i] = float(int32_t(px[i]) - z) * ps[c];
      });
    });
    return {std::move(y)};
  }

 private:
  int64_t axis_;
};
}  // namespace

std::unique_ptr<Op> create_dequantize_linear(const Node& node, const OpContext&) {
  return std::make_unique<DequantizeLinear>(node.attr_int("axis", 1));
}

}  // namespace q8
