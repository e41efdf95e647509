// Transpose: output dim i = input dim perm[i]; perm defaults to the reversed axes.
#include <algorithm>
#include <numeric>

#include "engine/ops/op.h"
#include "engine/ops/strided_copy.h"

namespace q8 {

namespace {
class Transpose final : public Op {
 public:
  explicit Transpose(std::vector<int64_t> perm) : perm_(std::move(perm)) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "Transpose", "data");
    std::vector<int64_t> perm = perm_;
    if (perm.empty()) {
      perm.resize(x.rank());
      std::iota(perm.rbegin(), perm.rend(), 0);
    }
    check(perm.size() == x.rank(), "Transpose: perm has " + std::to_string(perm.size()) + " entries for rank " +
                                       std::to_string(x.rank()));
    std::vector<bool> seen(x.rank(), false);
    const std::vector<int64_t> in_strides = dense_strides(x.dims());
    Dims out_dims(x.rank());
    std::vector<int64_t> strides(x.rank());
    for (size_t i = 0; i < perm.size(); ++i) {
      const int64_t p = normalize_axis(perm[i], int64_t(x.rank()), "Transpose");
      check(!seen[size_t(p)], "Transpose: perm repeats axis " + std::to_string(p));
      seen[size_t(p)] = true;
      out_dims[i] = x.dim(size_t(p));
      strides[i] = in_strides[size_t(p)];
    }
    Tensor y(x.dtype(), out_dims);
    gather_strided(x, 0, strides, y);
    return {std::move(y)};
  }

 private:
  std::vector<int64_t> perm_;
};
}  // namespace

std::unique_ptr<Op> create_transpose(const Node& node, const OpContext&) {
  return std::make_unique<Transpose>(node.attr_ints("perm"));
}

}  // namespace q8
