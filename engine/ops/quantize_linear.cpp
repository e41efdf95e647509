// QuantizeLinear: y = saturate(round_half_even(x / y_scale) + y_zero_point), per tensor or
// per axis (opset 13; axis 1 by default). The zero point's type (int8 or uint8) is y's type;
// uint8 when absent. See docs/quantization.md.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "engine/cpu/parallel.h"
#include "engine/cpu/quantize_int8.h"
#include "engine/ir/rounding.h"
#include "engine/ops/broadcast.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/quantize_common.h"

namespace q8 {

namespace {

class QuantizeLinear final : public Op {
 public:
  explicit QuantizeLinear(int64_t axis) : axis_(axis) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = float_input(in, 0, "QuantizeLinear", "x");
    const Tensor& scale = required_input(in, 1, "QuantizeLinear", "y_scale");
    const Tensor* zp = optional_input(in, 2);
    const DType out_type = zp ? zp->dtype() : DType::Uint8;
    check(out_type == DType::Int8 || out_type == DType::Uint8, "QuantizeLinear: zero point must be int8 or uint8");
    const QuantLayout l = quant_layout(x, scale, zp, axis_, "QuantizeLinear");
    Tensor y = Tensor::uninitialized(out_type, x.dims());
    visit_numeric(out_type, [&]<typename T>() {
      const float* px = x.data<float>();
      const float* ps = scale.data<float>();
      T* py = y.data<T>();
      for_each_channel_span(l, [&](int64_t c, int64_t b, int64_t e) {
        const float s = ps[c];
        const float z = zp ? float(zp->data<T>()[c]) : 0.0f;
        if constexpr (std::is_same_v<T, int8_t>) {
          quantize_int8_range(px + b, py + b, e - b, s, z);
          return;
        }
        for (int64_t i = b; i < e; ++i) {
          const float q = round_half_even(px[i] / s) + z;
          py[i] = T(std::clamp(q, float(std::numeric_limits<T>::min()), float(std::numeric_limits<T>::max())));
        }
      });
    });
    return {std::move(y)};
  }

 private:
  int64_t axis_;
};
}  // namespace

std::unique_ptr<Op> create_quantize_linear(const Node& node, const OpContext&) {
  return std::make_unique<QuantizeLinear>(node.attr_int("axis", 1));
}

}  // namespace q8
