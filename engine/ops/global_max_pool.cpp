// GlobalMaxPool: Y[n, c, 1…] = max of X[n, c, …].
#include <limits>

#include "engine/ops/elementwise.h"

namespace q8 {

namespace {
class GlobalMaxPool final : public Op {
 public:
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = float_input(in, 0, "GlobalMaxPool", "X");
    check(x.rank() >= 2, "GlobalMaxPool: input needs rank >= 2, got " + dims_to_string(x.dims()));
    Dims out(x.rank(), 1);
    out[0] = x.dim(0), out[1] = x.dim(1);
    Tensor y(DType::Float32, out);
    const int64_t planes = x.dim(0) * x.dim(1), size = planes ? x.numel() / planes : 0;
    const float* px = x.data<float>();
    float* py = y.data<float>();
    for (int64_t p = 0; p < planes; ++p) {
      float best = -std::numeric_limits<float>::infinity();
      for (int64_t i = 0; i < size; ++i) best = std::max(best, px[p * size + i]);
      py[p] = best;
    }
    return {std::move(y)};
  }
};
}  // namespace

std::unique_ptr<Op> create_global_max_pool(const Node&, const OpContext&) { return std::make_unique<GlobalMaxPool>(); }

}  // namespace q8
