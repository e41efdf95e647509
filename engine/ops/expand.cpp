// Expand: broadcasts the input to the numpy broadcast of its shape and the shape input.
#include "engine/ops/broadcast.h"
#include "engine/ops/op.h"
#include "engine/ops/strided_copy.h"

namespace q8 {

namespace {
class Expand final : public Op {
 public:
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "Expand", "input");
    const Dims shape = required_input(in, 1, "Expand", "shape").to_int64s();
    const Dims out_dims = broadcast_dims(x.dims(), shape, "Expand");
    std::vector<int64_t> strides(out_dims.size(), 0);
    const std::vector<int64_t> in_strides = dense_strides(x.dims());
    for (size_t i = 0; i < x.rank(); ++i) {
      const size_t o = i + out_dims.size() - x.rank();
      strides[o] = x.dim(i) == 1 ? 0 : in_strides[i];
    }
    Tensor y(x.dtype(), out_dims);
    gather_strided(x, 0, strides, y);
    return {std::move(y)};
  }
};
}  // namespace

std::unique_ptr<Op> create_expand(const Node&, const OpContext&) { return std::make_unique<Expand>(); }

}  // namespace q8
