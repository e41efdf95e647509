// LayerNormalization: over the dims from axis (default −1),
//   Y = (X − mean) / sqrt(var + epsilon) · Scale + B, var the biased variance;
// optional outputs Mean and InvStdDev have X's shape with the normalized dims set to 1.
// The mean and the variance are sums in double in plane_sum.h's order (lane_sum).
#include <algorithm>
#include <cmath>

#include "engine/cpu/parallel.h"
#include "engine/ops/broadcast.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/plane_sum.h"

namespace q8 {

namespace {
class LayerNormalization final : public Op {
 public:
  explicit LayerNormalization(const Node& node)
      : axis_(node.attr_int("axis", -1)), epsilon_(node.attr_float("epsilon", 1e-5f)), outputs_(node.outputs.size()) {}

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = float_input(in, 0, "LayerNormalization", "X");
    const Tensor& scale = float_input(in, 1, "LayerNormalization", "Scale");
    const Tensor* bias = optional_input(in, 2);
    const size_t axis = size_t(normalize_axis(axis_, int64_t(x.rank()), "LayerNormalization"));
    int64_t rows = 1, len = 1;
    Dims stat_dims = x.dims(), norm_dims;
    for (size_t d = 0; d < x.rank(); ++d) {
      if (d < axis) rows *= x.dim(d);
      else len *= x.dim(d), stat_dims[d] = 1, norm_dims.push_back(x.dim(d));
    }
    // Scale and B broadcast to the normalized dims.
    Tensor s = expand_to(scale, norm_dims), b;
    if (bias) b = expand_to(*bias, norm_dims);
    Tensor y = Tensor::uninitialized(DType::Float32, x.dims()), mean = Tensor::uninitialized(DType::Float32, stat_dims),
           inv_std = Tensor::uninitialized(DType::Float32, stat_dims);
    const float* px = x.data<float>();
    const float* ps = s.data<float>();
    const float* pb = bias ? b.data<float>() : nullptr;
    float* py = y.data<float>();
    float* pmean = mean.data<float>();
    float* pinv = inv_std.data<float>();
    // Rows split among threads; each row's arithmetic is the same whoever computes it.
    parallel_for(rows, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(len, 1)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const float* row = px + r * len;
        float* out = py + r * len;
        const double mu = lane_sum(len, [&](int64_t j) { return double(row[j]); }) / double(len);
        const double sq = lane_sum(len, [&](int64_t j) { return (row[j] - mu) * (row[j] - mu); });
        const float inv = float(1.0 / std::sqrt(sq / double(len) + epsilon_)), mu_f = float(mu);
        if (pb) {
          for (int64_t j = 0; j < len; ++j) out[j] = (row[j] - mu_f) * inv * ps[j] + pb[j];
        } else {
          for (int64_t j = 0; j < len; ++j) out[j] = (row[j] - mu_f) * inv * ps[j] + 0.0f;
        }
        pmean[r] = mu_f;
        pinv[r] = inv;
      }
    });
    std::vector<Tensor> out{std::move(y)};
    if (outputs_ > 1) out.push_back(std::move(mean));
    if (outputs_ > 2) out.push_back(std::move(inv_std));
    return out;
  }

 private:
  static Tensor expand_to(const Tensor& t, const Dims& dims) {
    check(t.dtype() == DType::Float32, "LayerNormalization: Scale and B must be float32");
    check(broadcast_dims(t.dims(), dims, "LayerNormalization") == dims,
          "LayerNormalization: shape " + dims_to_string(t.dims()) + " does not broadcast to " + dims_to_string(dims));
    return t.dims() == dims ? t : broadcast_float_to(t, dims);
  }

  int64_t axis_;
  float epsilon_;
  size_t outputs_;
};
}  // namespace

std::unique_ptr<Op> create_layer_normalization(const Node& node, const OpContext&) {
  return std::make_unique<LayerNormalization>(node);
}

}  // namespace q8
