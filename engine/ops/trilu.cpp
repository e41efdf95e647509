// Trilu: the upper (upper = 1, the default) or lower triangle of each matrix of the last two axes;
// element (i, j) is kept when j − i ≥ k (upper) or j − i ≤ k (lower), k an optional scalar input
// (0 by default); the rest are 0.
#include <cstring>

#include "engine/ops/op.h"

namespace q8 {

namespace {

class Trilu final : public Op {
 public:
  explicit Trilu(bool upper) : upper_(upper) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "Trilu", "input");
    check(x.rank() >= 2, "Trilu: input must have rank ≥ 2, got " + dims_to_string(x.dims()));
    int64_t k = 0;
    if (const Tensor* t = optional_input(in, 1)) {
      check(t->numel() == 1, "Trilu: k must be a scalar, got " + dims_to_string(t->dims()));
      k = t->to_int64s()[0];
    }
    Tensor y(x.dtype(), x.dims());  // zeros
    const int64_t rows = x.dim(x.rank() - 2), cols = x.dim(x.rank() - 1);
    const int64_t mats = rows * cols != 0 ? x.numel() / (rows * cols) : 0;
    const size_t elem = dtype_size(x.dtype());
    for (int64_t m = 0; m < mats; ++m)
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
          if (upper_ ? j - i >= k : j - i <= k) {
            const size_t at = size_t((m * rows + i) * cols + j) * elem;
            copy_bytes(y.raw() + at, x.raw() + at, elem);
          }
    return {std::move(y)};
  }

 private:
  bool upper_;
};

}  // namespace

std::unique_ptr<Op> create_trilu(const Node& node, const OpContext&) { return std::make_unique<Trilu>(node.attr_int("upper", 1) != 0); }

}  // namespace q8
