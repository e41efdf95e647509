// Transpose: output dim i = input dim perm[i]; perm defaults to the reversed axes.
#include <algorithm>
#include <numeric>

#include "engine/cpu/transpose.h"
#include "engine/ops/channels_last.h"
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
    // Into and out of channels-last (the layout pass's transposes): per-sample tiled transposes.
    if (x.rank() >= 3) {
      std::vector<int64_t> normalized(perm.size()), into_last(x.rank()), into_first(x.rank());
      for (size_t i = 0; i < perm.size(); ++i) normalized[i] = perm[i] < 0 ? perm[i] + int64_t(x.rank()) : perm[i];
      std::iota(into_last.begin() + 1, into_last.end() - 1, 2);
      into_last.back() = 1;
      std::iota(into_first.begin() + 2, into_first.end(), 1);
      into_first[1] = int64_t(x.rank()) - 1;
      if (normalized == into_last) return {to_channels_last(x)};
      if (normalized == into_first) return {to_channels_first(x)};
    }
    Tensor y = Tensor::uninitialized(x.dtype(), out_dims);  // every element is written below
    const size_t r = x.rank();
    if (r >= 2 && strides[r - 2] == 1 && strides[r - 1] != 1 && out_dims[r - 2] * out_dims[r - 1] >= 16) {
      // The input's last axis becomes the output's last but one (attention's K → Kᵀ, [B, S, H, D]
      // → [B, H, D, S]): each output matrix [A, B] is a transposed [B, A] block of the input with
      // rows strides[r − 1] apart, moved in tiles rather than one strided value at a time.
      std::vector<int64_t> offsets(1, 0);
      for (size_t d = 0; d + 2 < r; ++d) {
        std::vector<int64_t> next;
        next.reserve(offsets.size() * size_t(out_dims[d]));
        for (int64_t base : offsets)
          for (int64_t i = 0; i < out_dims[d]; ++i) next.push_back(base + i * strides[d]);
        offsets = std::move(next);
      }
      transpose_strided_matrices(x.raw(), offsets, strides[r - 1], y.raw(), out_dims[r - 1], out_dims[r - 2], dtype_size(x.dtype()));
      return {std::move(y)};
    }
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
