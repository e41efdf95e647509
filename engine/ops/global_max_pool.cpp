// GlobalMaxPool: Y[n, c, 1…] = max of X[n, c, …].
#include <limits>

#include "engine/ops/global_pool.h"

namespace q8 {

namespace {
class GlobalMaxPool final : public Op {
 public:
  std::vector<Tensor> run(const Inputs& in) const override {
    return {global_pool(in, "GlobalMaxPool", [](const float* v, int64_t n) {
      float best = -std::numeric_limits<float>::infinity();
      for (int64_t i = 0; i < n; ++i) best = std::max(best, v[i]);
      return best;
    })};
  }
};
}  // namespace

std::unique_ptr<Op> create_global_max_pool(const Node&, const OpContext&) { return std::make_unique<GlobalMaxPool>(); }

}  // namespace q8
