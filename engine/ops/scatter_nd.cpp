// ScatterND: a copy of data where the slice each row of indices (the last axis, length q)
// addresses takes the matching slice of updates, combined by reduction (scatter.h); updates'
// shape is indices.shape[:-1] + data.shape[q:]. Negative indices count from the end.
#include "engine/ops/indexing.h"
#include "engine/ops/op.h"
#include "engine/ops/scatter.h"

namespace q8 {

namespace {

class ScatterND final : public Op {
 public:
  explicit ScatterND(ScatterReduction r) : reduction_(r) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "ScatterND", "data");
    const Tensor& idx = required_input(in, 1, "ScatterND", "indices");
    const Tensor& upd = required_input(in, 2, "ScatterND", "updates");
    check(upd.dtype() == x.dtype(), "ScatterND: updates and data have different types");
    check(idx.rank() >= 1, "ScatterND: indices must have rank ≥ 1");
    const size_t q = size_t(idx.dim(idx.rank() - 1));
    check(q <= x.rank(), "ScatterND: indices address " + std::to_string(q) + " axes of rank " + std::to_string(x.rank()));
    Dims want(idx.dims().begin(), idx.dims().end() - 1);
    want.insert(want.end(), x.dims().begin() + long(q), x.dims().end());
    check(upd.dims() == want, "ScatterND: updates is " + dims_to_string(upd.dims()) + ", indices and data ask for " + dims_to_string(want));
    Tensor y = x.clone();
    const std::vector<int64_t> indices = idx.to_int64s(), xs = dense_strides(x.dims());
    const int64_t rows = span_size(idx.dims(), 0, idx.rank() - 1), slice = span_size(x.dims(), q, x.rank());
    for (int64_t r = 0; r < rows; ++r) {
      int64_t dst = 0;
      for (size_t k = 0; k < q; ++k) dst += checked_index(indices[size_t(r) * q + k], x.dim(k), "ScatterND", k) * xs[k];
      for (int64_t e = 0; e < slice; ++e) scatter_element(y, dst + e, upd, r * slice + e, reduction_);
    }
    return {std::move(y)};
  }

 private:
  ScatterReduction reduction_;
};

}  // namespace

std::unique_ptr<Op> create_scatter_nd(const Node& node, const OpContext&) { return std::make_unique<ScatterND>(scatter_reduction(node)); }

}  // namespace q8
