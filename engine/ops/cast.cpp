// Cast: converts to the type 'to'. Float to integer truncates toward zero (as C++ and ONNX
// Runtime do); float to float16 rounds to nearest even; anything to bool is (x != 0).
#include "engine/ops/cast.h"

namespace q8 {

namespace {

template <typename To, typename From>
To convert(From v) {
  float f;
  if constexpr (std::is_same_v<From, Float16>) f = half_to_float(v);
  if constexpr (std::is_same_v<To, Float16>) {
    if constexpr (std::is_same_v<From, Float16>) return v;
    else return float_to_half(float(v));
  } else if constexpr (std::is_same_v<From, Float16>) {
    if constexpr (std::is_same_v<To, bool>) return f != 0.0f;
    else return To(f);
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else {
    return To(v);
  }
}

class Cast final : public Op {
 public:
  explicit Cast(DType to) : to_(to) {}
  std::vector<Tensor> run(const Inputs& in) const override { return {cast_tensor(required_input(in, 0, "Cast", "input"), to_)}; }

 private:
  DType to_;
};
}  // namespace

Tensor cast_tensor(const Tensor& x, DType to) {
  if (x.dtype() == to) return x;
  Tensor y = Tensor::uninitialized(to, x.dims());
  visit_dtype(x.dtype(), [&]<typename From>() {
    visit_dtype(to, [&]<typename To>() {
      const From* src = x.data<From>();
      To* dst = y.data<To>();
      for (int64_t i = 0; i < x.numel(); ++i) dst[i] = convert<To, From>(src[i]);
    });
  });
  return y;
}

std::unique_ptr<Op> create_cast(const Node& node, const OpContext&) {
  check(node.has("to"), node.describe() + ": attribute 'to' is required");
  return std::make_unique<Cast>(dtype_from_onnx(int(node.attr_int("to", 0)), node.describe() + ": 'to'"));
}

}  // namespace q8
