// ScatterElements (and the deprecated Scatter): a copy of data where, for each position p of
// indices, the element of data at p with index axis replaced by indices[p] takes updates[p],
// combined by reduction (scatter.h). Negative indices count from the end.
#include "engine/ops/indexing.h"
#include "engine/ops/op.h"
#include "engine/ops/scatter.h"

namespace q8 {

namespace {

class ScatterElements final : public Op {
 public:
  ScatterElements(int64_t axis, ScatterReduction r) : axis_(axis), reduction_(r) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "ScatterElements", "data");
    const Tensor& idx = required_input(in, 1, "ScatterElements", "indices");
    const Tensor& upd = required_input(in, 2, "ScatterElements", "updates");
    check(upd.dtype() == x.dtype(), "ScatterElements: updates and data have different types");
    check(idx.dims() == upd.dims(), "ScatterElements: indices " + dims_to_string(idx.dims()) + " and updates " +
                                        dims_to_string(upd.dims()) + " differ");
    check(idx.rank() == x.rank(), "ScatterElements: indices has rank " + std::to_string(idx.rank()) + ", data " + std::to_string(x.rank()));
    const size_t axis = size_t(normalize_axis(axis_, int64_t(x.rank()), "ScatterElements"));
    for (size_t d = 0; d < x.rank(); ++d)
      check(d == axis || idx.dim(d) <= x.dim(d), "ScatterElements: indices " + dims_to_string(idx.dims()) +
                                                     " is larger than data " + dims_to_string(x.dims()) + " off the axis");
    Tensor y = x.clone();
    const std::vector<int64_t> indices = idx.to_int64s(), xs = dense_strides(x.dims());
    std::vector<int64_t> pos(idx.rank(), 0);
    for (int64_t p = 0; p < idx.numel(); ++p) {
      int64_t dst = 0;
      for (size_t d = 0; d < pos.size(); ++d)
        dst += (d == axis ? checked_index(indices[size_t(p)], x.dim(d), "ScatterElements", d) : pos[d]) * xs[d];
      scatter_element(y, dst, upd, p, reduction_);
      for (size_t d = pos.size(); d-- > 0;) {
        if (++pos[d] < idx.dim(d)) break;
        pos[d] = 0;
      }
    }
    return {std::move(y)};
  }

 private:
  int64_t axis_;
  ScatterReduction reduction_;
};

}  // namespace

std::unique_ptr<Op> create_scatter_elements(const Node& node, const OpContext&) {
  return std::make_unique<ScatterElements>(node.attr_int("axis", 0), scatter_reduction(node));
}

}  // namespace q8
