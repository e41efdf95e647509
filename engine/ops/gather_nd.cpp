// GatherND: the slices of data that the last axis of indices (length q) addresses, after the
// first batch_dims axes, which data and indices share: output shape = indices.shape[:-1] +
// data.shape[batch_dims + q:]. Negative indices count from the end.
#include "engine/ops/indexing.h"
#include "engine/ops/op.h"

namespace q8 {

namespace {

class GatherND final : public Op {
 public:
  explicit GatherND(int64_t batch_dims) : batch_dims_(batch_dims) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "GatherND", "data");
    const Tensor& idx = required_input(in, 1, "GatherND", "indices");
    const size_t b = size_t(batch_dims_);
    check(batch_dims_ >= 0 && idx.rank() >= 1 && b < idx.rank() && b < x.rank(),
          "GatherND: batch_dims " + std::to_string(batch_dims_) + " does not fit data " + dims_to_string(x.dims()) + " and indices " +
              dims_to_string(idx.dims()));
    for (size_t d = 0; d < b; ++d)
      check(x.dim(d) == idx.dim(d), "GatherND: data and indices differ on batch axis " + std::to_string(d));
    const size_t q = size_t(idx.dim(idx.rank() - 1));
    check(b + q <= x.rank(), "GatherND: indices address " + std::to_string(q) + " axes after " + std::to_string(b) +
                                 " batch axes of rank " + std::to_string(x.rank()));
    Dims out(idx.dims().begin(), idx.dims().end() - 1);
    out.insert(out.end(), x.dims().begin() + long(b + q), x.dims().end());
    Tensor y(x.dtype(), out);
    const std::vector<int64_t> indices = idx.to_int64s(), xs = dense_strides(x.dims());
    const int64_t batches = span_size(x.dims(), 0, b), per_batch = span_size(idx.dims(), b, idx.rank() - 1);
    const size_t slice = size_t(span_size(x.dims(), b + q, x.rank())) * dtype_size(x.dtype());
    const int64_t batch_stride = span_size(x.dims(), b, x.rank());
    for (int64_t n = 0; n < batches; ++n)
      for (int64_t t = 0; t < per_batch; ++t) {
        const int64_t row = n * per_batch + t;
        int64_t src = n * batch_stride;
        for (size_t k = 0; k < q; ++k) src += checked_index(indices[size_t(row) * q + k], x.dim(b + k), "GatherND", b + k) * xs[b + k];
        copy_bytes(y.raw() + size_t(row) * slice, x.raw() + size_t(src) * dtype_size(x.dtype()), slice);
      }
    return {std::move(y)};
  }

 private:
  int64_t batch_dims_;
};

}  // namespace

std::unique_ptr<Op> create_gather_nd(const Node& node, const OpContext&) { return std::make_unique<GatherND>(node.attr_int("batch_dims", 0)); }

}  // namespace q8
