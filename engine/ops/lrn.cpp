// LRN: y = x / (bias + alpha / size · Σ x²)^beta, the sum over channels
// [c − ⌊(size − 1)/2⌋, c + ⌈(size − 1)/2⌉] that exist; input [N, C, D1…].
#include <cmath>

#include "engine/ops/elementwise.h"

namespace q8 {

namespace {

class Lrn final : public Op {
 public:
  Lrn(int64_t size, float alpha, float beta, float bias) : size_(size), alpha_(alpha), beta_(beta), bias_(bias) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = float_input(in, 0, "LRN", "X");
    check(x.rank() >= 2, "LRN: X must have rank ≥ 2, got " + dims_to_string(x.dims()));
    const int64_t n = x.dim(0), c = x.dim(1), plane = c ? x.numel() / std::max<int64_t>(1, n * c) : 0;
    const int64_t before = (size_ - 1) / 2, after = size_ - 1 - before;
    Tensor y = Tensor::uninitialized(DType::Float32, x.dims());
    const float* px = x.data<float>();
    for (int64_t b = 0; b < n; ++b)
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t p = 0; p < plane; ++p) {
          double sq = 0;
          for (int64_t k = std::max<int64_t>(0, ch - before); k <= std::min(c - 1, ch + after); ++k) {
            const float v = px[(b * c + k) * plane + p];
            sq += double(v) * v;
          }
          const int64_t at = (b * c + ch) * plane + p;
          y.data<float>()[at] = float(px[at] / std::pow(double(bias_) + double(alpha_) / double(size_) * sq, double(beta_)));
        }
    return {std::move(y)};
  }

 private:
  int64_t size_;
  float alpha_, beta_, bias_;
};

}  // namespace

std::unique_ptr<Op> create_lrn(const Node& node, const OpContext&) {
  check(node.has("size") && node.attr_int("size", 0) > 0, node.describe() + ": attribute 'size' must be positive");
  return std::make_unique<Lrn>(node.attr_int("size", 0), node.attr_float("alpha", 1e-4f), node.attr_float("beta", 0.75f),
                               node.attr_float("bias", 1.0f));
}

}  // namespace q8
