// BatchNormalization (inference): Y = (X − mean[c]) / sqrt(var[c] + epsilon) · scale[c] + B[c]
// over channel axis 1. Training mode (training_mode = 1) is refused: q8 runs inference only.
#include <cmath>

#include "engine/cpu/parallel.h"
#include "engine/ops/elementwise.h"

namespace q8 {

namespace {

class BatchNormalization final : public Op {
 public:
  explicit BatchNormalization(const Node& node)
      : epsilon_(node.attr_float("epsilon", 1e-5f)), training_(node.attr_int("training_mode", 0) != 0),
        outputs_(node.outputs.size()), name_(node.describe()) {
    check(!training_, name_ + ": training_mode = 1 is not supported (inference only)");
  }

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = float_input(in, 0, "BatchNormalization", "X");
    const char* names[] = {"X", "scale", "B", "mean", "var"};
    check(x.rank() >= 2, name_ + ": X of shape " + dims_to_string(x.dims()) + " has no channel axis");
    const int64_t c = x.dim(1);
    std::vector<const float*> p(5);
    for (size_t i = 1; i < 5; ++i) {
      const Tensor& t = float_input(in, i, "BatchNormalization", names[i]);
      check(t.numel() == c, name_ + ": " + names[i] + " has " + std::to_string(t.numel()) + " values for " +
                                std::to_string(c) + " channels");
      p[i] = t.data<float>();
    }
    Tensor y(DType::Float32, x.dims());
    const int64_t n = x.dim(0), size = c && n ? x.numel() / (n * c) : 0;
    const float* px = x.data<float>();
    float* py = y.data<float>();
    parallel_for(n * c, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(size, 1)), [&](int64_t p0, int64_t p1) {
    for (int64_t plane = p0; plane < p1; ++plane) {
      const int64_t ch = plane % c;
      const float a = p[1][ch] / std::sqrt(p[4][ch] + epsilon_);
      const float b = p[2][ch] - p[3][ch] * a;
      for (int64_t i = 0; i < size; ++i) py[plane * size + i] = px[plane * size + i] * a + b;
    }
    });
    std::vector<Tensor> out{std::move(y)};
    for (size_t i = 1; i < outputs_; ++i) out.push_back(Tensor());  // optional training outputs, not produced
    return out;
  }

 private:
  float epsilon_;
  bool training_;
  size_t outputs_;
  std::string name_;
};

}  // namespace

std::unique_ptr<Op> create_batch_normalization(const Node& node, const OpContext&) {
  return std::make_unique<BatchNormalization>(node);
}

}  // namespace q8
