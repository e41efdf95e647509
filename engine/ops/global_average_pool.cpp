// GlobalAveragePool: Y[n, c, 1…] = mean of X[n, c, …], accumulated in double in the order
// engine/ops/plane_sum.h fixes (64 interleaved partial sums, then halving): an order that depends
// on the plane's size only, which a GPU work-group follows with every lane busy.
#include "engine/ops/global_pool.h"
#include "engine/ops/plane_sum.h"

namespace q8 {

namespace {
class GlobalAveragePool final : public Op {
 public:
  std::vector<Tensor> run(const Inputs& in) const override {
    return {global_pool(in, "GlobalAveragePool", [](const float* v, int64_t n) {
      double s[kPlaneSumLanes] = {};
      for (int64_t i0 = 0; i0 < n; i0 += kPlaneSumLanes)
        for (int64_t k = 0; k < std::min<int64_t>(kPlaneSumLanes, n - i0); ++k) s[k] += double(v[i0 + k]);
      return float(halving_sum(s) / double(n));
    })};
  }
};
}  // namespace

std::unique_ptr<Op> create_global_average_pool(const Node&, const OpContext&) { return std::make_unique<GlobalAveragePool>(); }

}  // namespace q8
