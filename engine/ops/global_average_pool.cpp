// GlobalAveragePool: Y[n, c, 1…] = mean of X[n, c, …].
#include "engine/ops/elementwise.h"

namespace q8 {

namespace {
class GlobalAveragePool final : public Op {
 public:
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = float_input(in, 0, "GlobalAveragePool", "X");
    check(x.rank() >= 2, "GlobalAveragePool: input needs rank >= 2, got " + dims_to_string(x.dims()));
    Dims out(x.rank(), 1);
    out[0] = x.dim(0), out[1] = x.dim(1);
    Tensor y(DType::Float32, out);
    const int64_t planes = x.dim(0) * x.dim(1), size = planes ? x.numel() / planes : 0;
    const float* px = x.data<float>();
    float* py = y.data<float>();
    for (int64_t p = 0; p < planes; ++p) {
      double sum = 0;
      for (int64_t i = 0; i < size; ++i) sum += px[p * size + i];
      py[p] = float(sum / double(size));
    }
    return {std::move(y)};
  }
};
}  // namespace

std::unique_ptr<Op> create_global_average_pool(const Node&, const OpContext&) { return std::make_unique<GlobalAveragePool>(); }

}  // namespace q8
