// GlobalAveragePool: Y[n, c, 1…] = mean of X[n, c, …] (accumulated in double).
#include "engine/ops/global_pool.h"

namespace q8 {

namespace {
class GlobalAveragePool final : public Op {
 public:
  std::vector<Tensor> run(const Inputs& in) const override {
    return {global_pool(in, "GlobalAveragePool", [](const float* v, int64_t n) {
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) sum += v[i];
      return float(sum / double(n));
    })};
  }
};
}  // namespace

std::unique_ptr<Op> create_global_average_pool(const Node&, const OpContext&) { return std::make_unique<GlobalAveragePool>(); }

}  // namespace q8
