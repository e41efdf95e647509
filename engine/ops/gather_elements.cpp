// GatherElements: output[i…] = data[i… with index axis replaced by indices[i…]]; output has the
// indices' shape, negative indices count from the end.
#include "engine/ops/indexing.h"
#include "engine/ops/op.h"

namespace q8 {

namespace {

class GatherElements final : public Op {
 public:
  explicit GatherElements(int64_t axis) : axis_(axis) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "GatherElements", "data");
    const Tensor& idx = required_input(in, 1, "GatherElements", "indices");
    check(idx.rank() == x.rank(), "GatherElements: indices has rank " + std::to_string(idx.rank()) + ", data " + std::to_string(x.rank()));
    const size_t axis = size_t(normalize_axis(axis_, int64_t(x.rank()), "GatherElements"));
    for (size_t d = 0; d < x.rank(); ++d)
      check(d == axis || idx.dim(d) <= x.dim(d), "GatherElements: indices " + dims_to_string(idx.dims()) +
                                                     " is larger than data " + dims_to_string(x.dims()) + " off the axis");
    Tensor y(x.dtype(), idx.dims());
    const std::vector<int64_t> indices = idx.to_int64s(), xs = dense_strides(x.dims());
    const size_t elem = dtype_size(x.dtype());
    std::vector<int64_t> pos(idx.rank(), 0);
    for (int64_t o = 0; o < y.numel(); ++o) {
      int64_t src = 0;
      for (size_t d = 0; d < pos.size(); ++d)
        src += (d == axis ? checked_index(indices[size_t(o)], x.dim(d), "GatherElements", d) : pos[d]) * xs[d];
      copy_bytes(y.raw() + size_t(o) * elem, x.raw() + size_t(src) * elem, elem);
      for (size_t d = pos.size(); d-- > 0;) {
        if (++pos[d] < idx.dim(d)) break;
        pos[d] = 0;
      }
    }
    return {std::move(y)};
  }

 private:
  int64_t axis_;
};

}  // namespace

std::unique_ptr<Op> create_gather_elements(const Node& node, const OpContext&) {
  return std::make_unique<GatherElements>(node.attr_int("axis", 0));
}

}  // namespace q8
