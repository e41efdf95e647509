// Tile: input repeated repeats[d] times along each axis d (repeats: int64, one per axis, ≥ 0).
#include "engine/ops/indexing.h"
#include "engine/ops/op.h"

namespace q8 {

namespace {

class Tile final : public Op {
 public:
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "Tile", "input");
    const std::vector<int64_t> repeats = required_input(in, 1, "Tile", "repeats").to_int64s();
    check(repeats.size() == x.rank(), "Tile: repeats has " + std::to_string(repeats.size()) + " values for rank " + std::to_string(x.rank()));
    Dims out = x.dims();
    for (size_t d = 0; d < out.size(); ++d) {
      check(repeats[d] >= 0, "Tile: repeats[" + std::to_string(d) + "] is negative");
      out[d] *= repeats[d];
    }
    Tensor y(x.dtype(), out);
    if (y.numel() == 0) return {std::move(y)};
    const size_t elem = dtype_size(x.dtype());
    const std::vector<int64_t> xs = dense_strides(x.dims());
    std::vector<int64_t> idx(out.size(), 0);
    for (int64_t o = 0; o < y.numel(); ++o) {
      int64_t src = 0;
      for (size_t d = 0; d < out.size(); ++d) src += (idx[d] % x.dim(d)) * xs[d];
      copy_bytes(y.raw() + size_t(o) * elem, x.raw() + size_t(src) * elem, elem);
      for (size_t d = out.size(); d-- > 0;) {
        if (++idx[d] < out[d]) break;
        idx[d] = 0;
      }
    }
    return {std::move(y)};
  }
};

}  // namespace

std::unique_ptr<Op> create_tile(const Node&, const OpContext&) { return std::make_unique<Tile>(); }

}  // namespace q8
