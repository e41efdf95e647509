// MeanVarianceNormalization: (X − E[X]) / (sqrt(E[(X − E[X])²]) + 1e-9) over the axes given (0, 2,
// 3 by default), where ONNX's function body adds its epsilon; the variance in two passes, in double.
#include "engine/ops/elementwise.h"
#include "engine/ops/indexing.h"

namespace q8 {

namespace {

class MeanVarianceNormalization final : public Op {
 public:
  explicit MeanVarianceNormalization(std::vector<int64_t> axes) : axes_(std::move(axes)) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = float_input(in, 0, "MeanVarianceNormalization", "X");
    std::vector<bool> reduced(x.rank(), false);
    for (int64_t a : axes_) reduced[size_t(normalize_axis(a, int64_t(x.rank()), "MeanVarianceNormalization"))] = true;
    Dims kept = x.dims();
    for (size_t d = 0; d < kept.size(); ++d)
      if (reduced[d]) kept[d] = 1;
    const std::vector<int64_t> xs = dense_strides(x.dims()), ks = dense_strides(kept);
    auto group = [&](int64_t i) {
      int64_t g = 0;
      for (size_t d = 0; d < kept.size(); ++d) g += (i / xs[d] % x.dim(d)) % kept[d] * ks[d];
      return g;
    };
    const int64_t groups = numel(kept), count = groups ? x.numel() / groups : 0;
    std::vector<double> mean(size_t(groups), 0.0), var(size_t(groups), 0.0);
    const float* px = x.data<float>();
    for (int64_t i = 0; i < x.numel(); ++i) mean[size_t(group(i))] += px[i];
    for (double& m : mean) m /= double(std::max<int64_t>(count, 1));
    for (int64_t i = 0; i < x.numel(); ++i) {
      const double d = px[i] - mean[size_t(group(i))];
      var[size_t(group(i))] += d * d;
    }
    Tensor y = Tensor::uninitialized(DType::Float32, x.dims());
    for (int64_t i = 0; i < x.numel(); ++i) {
      const size_t g = size_t(group(i));
      y.data<float>()[i] = float((px[i] - mean[g]) / (std::sqrt(var[g] / double(std::max<int64_t>(count, 1))) + 1e-9));
    }
    return {std::move(y)};
  }

 private:
  std::vector<int64_t> axes_;
};

}  // namespace

std::unique_ptr<Op> create_mean_variance_normalization(const Node& node, const OpContext&) {
  return std::make_unique<MeanVarianceNormalization>(node.attr_ints("axes", {0, 2, 3}));
}

}  // namespace q8
