// Clip: y = min(max(x, min), max). Opset < 11: min/max are attributes; opset >= 11: optional
// scalar inputs 1 and 2. Integer types are clipped in their own type.
#include <limits>

#include "engine/ops/elementwise.h"

namespace q8 {

namespace {

class Clip final : public Op {
 public:
  Clip(const Node& node, int64_t opset) : attr_form_(opset < 11) {
    if (attr_form_) {
      min_ = node.attr_float("min", -std::numeric_limits<float>::infinity());
      max_ = node.attr_float("max", std::numeric_limits<float>::infinity());
    }
  }

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "Clip", "input");
    Tensor y = Tensor::uninitialized(x.dtype(), x.dims());
    check(x.dtype() != DType::Float16 && x.dtype() != DType::Bool,
          "Clip: input type " + std::string(dtype_name(x.dtype())) + " is not supported");
    visit_numeric(x.dtype(), [&]<typename T>() {
      T lo = std::numeric_limits<T>::lowest(), hi = std::numeric_limits<T>::max();
      if (attr_form_) {
        if constexpr (std::is_same_v<T, float>) lo = min_, hi = max_;
      } else {
        if (const Tensor* m = optional_input(in, 1)) lo = bound<T>(*m, "min");
        if (const Tensor* m = optional_input(in, 2)) hi = bound<T>(*m, "max");
      }
      const T* src = x.data<T>();
      T* dst = y.data<T>();
      parallel_for(x.numel(), kParallelGrain, [&, lo, hi](int64_t b, int64_t e) {
        // lo and hi are copies: no store to dst can change them, so the loop vectorizes.
        for (int64_t i = b; i < e; ++i) {
          const T v = src[i], upper = v > hi ? hi : v;
          dst[i] = v < lo ? lo : upper;
        }
      });
    });
    return {std::move(y)};
  }

 private:
  template <typename T>
  static T bound(const Tensor& t, const char* what) {
    check(t.numel() == 1, std::string("Clip: ") + what + " must be a scalar, got shape " + dims_to_string(t.dims()));
    return t.data<T>()[0];
  }

  bool attr_form_;
  float min_ = 0, max_ = 0;
};

}  // namespace

std::unique_ptr<Op> create_clip(const Node& node, const OpContext& ctx) { return std::make_unique<Clip>(node, ctx.opset); }

}  // namespace q8
