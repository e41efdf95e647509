// GlobalAveragePool: Y[n, c, 1…] = mean of X[n, c, …], accumulated in double in four interleaved
// partial sums (element i into sum i mod 4, combined as (s0 + s1) + (s2 + s3)): a fixed order that
// depends on the plane's size only, without one long chain of dependent additions.
#include "engine/ops/global_pool.h"

namespace q8 {

namespace {
class GlobalAveragePool final : public Op {
 public:
  std::vector<Tensor> run(const Inputs& in) const override {
    return {global_pool(in, "GlobalAveragePool", [](const float* v, int64_t n) {
      double s[4] = {0, 0, 0, 0};
      int64_t i = 0;
      for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; ++k) s[k] += double(v[i + k]);
      for (int k = 0; i < n; ++i, ++k) s[k] += double(v[i]);
      return float(((s[0] + s[1]) + (s[2] + s[3])) / double(n));
    })};
  }
};
}  // namespace

std::unique_ptr<Op> create_global_average_pool(const Node&, const OpContext&) { return std::make_unique<GlobalAveragePool>(); }

}  // namespace q8
