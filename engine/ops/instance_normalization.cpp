// InstanceNormalization: each channel of each sample normalized over its spatial values
// (normalize_rows.h), then y = x̂ · scale[c] + B[c]; input [N, C, D1…].
#include "engine/ops/elementwise.h"
#include "engine/ops/normalize_rows.h"

namespace q8 {

namespace {

class InstanceNormalization final : public Op {
 public:
  explicit InstanceNormalization(float epsilon) : epsilon_(epsilon) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = float_input(in, 0, "InstanceNormalization", "input");
    const Tensor& scale = float_input(in, 1, "InstanceNormalization", "scale");
    const Tensor& bias = float_input(in, 2, "InstanceNormalization", "B");
    check(x.rank() >= 2, "InstanceNormalization: input must have rank ≥ 2, got " + dims_to_string(x.dims()));
    const int64_t n = x.dim(0), c = x.dim(1), len = c ? x.numel() / std::max<int64_t>(1, n * c) : 0;
    check(scale.numel() == c && bias.numel() == c, "InstanceNormalization: scale and B must hold one value per channel (" + std::to_string(c) + ")");
    Tensor y = Tensor::uninitialized(DType::Float32, x.dims());
    for (int64_t r = 0; r < n * c; ++r) {
      float* dst = y.data<float>() + r * len;
      normalize_row(x.data<float>() + r * len, dst, len, epsilon_);
      const float s = scale.data<float>()[r % c], b = bias.data<float>()[r % c];
      for (int64_t j = 0; j < len; ++j) dst[j] = dst[j] * s + b;
    }
    return {std::move(y)};
  }

 private:
  float epsilon_;
};

}  // namespace

std::unique_ptr<Op> create_instance_normalization(const Node& node, const OpContext&) {
  return std::make_unique<InstanceNormalization>(node.attr_float("epsilon", 1e-5f));
}

}  // namespace q8
