// Gather: output = data indexed along axis by indices (negative indices count from the end);
// output shape = data.shape[:axis] + indices.shape + data.shape[axis+1:].
#include <cstring>

#include "engine/ops/op.h"

namespace q8 {

namespace {
class Gather final : public Op {
 public:
  explicit Gather(int64_t axis) : axis_(axis) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "Gather", "data");
    const Tensor& idx = required_input(in, 1, "Gather", "indices");
    const size_t axis = size_t(normalize_axis(axis_, int64_t(x.rank()), "Gather"));
    const std::vector<int64_t> indices = idx.to_int64s();
    Dims out_dims(x.dims().begin(), x.dims().begin() + long(axis));
    out_dims.insert(out_dims.end(), idx.dims().begin(), idx.dims().end());
    out_dims.insert(out_dims.end(), x.dims().begin() + long(axis) + 1, x.dims().end());
    Tensor y(x.dtype(), out_dims);
    const int64_t dim = x.dim(axis);
    int64_t outer = 1;
    for (size_t d = 0; d < axis; ++d) outer *= x.dim(d);
    const size_t inner = size_t(x.numel() / std::max<int64_t>(outer * dim, 1)) * dtype_size(x.dtype());
    for (int64_t o = 0; o < outer; ++o) {
      for (size_t k = 0; k < indices.size(); ++k) {
        int64_t i = indices[k];
        check(i >= -dim && i < dim, "Gather: index " + std::to_string(i) + " is out of range for axis " +
                                        std::to_string(axis) + " of size " + std::to_string(dim));
        if (i < 0) i += dim;
        copy_bytes(y.raw() + (size_t(o) * indices.size() + k) * inner, x.raw() + (size_t(o * dim + i)) * inner, inner);
      }
    }
    return {std::move(y)};
  }

 private:
  int64_t axis_;
};
}  // namespace

std::unique_ptr<Op> create_gather(const Node& node, const OpContext&) { return std::make_unique<Gather>(node.attr_int("axis", 0)); }

}  // namespace q8
