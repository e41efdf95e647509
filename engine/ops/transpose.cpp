// Transpose: output dim i = input dim perm[i]; perm defaults to the reversed axes.
#include <algorithm>
#include <numeric>

#include "engine/cpu/transpose.h"
#include "engine/ops/channels_last.h"
#include "engine/ops/op.h"
#include "engine/ops/strided_copy.h"

namespace q8 {

namespace {

// What a perm makes of an input's dims: the output's, where each output axis reads the input
// (strides in values), and whether it is the layout pass's move into or out of channels-last.
struct TransposeLayout {
  Dims out_dims;
  std::vector<int64_t> strides;
  bool into_last = false, into_first = false;
};

TransposeLayout transpose_layout(const std::vector<int64_t>& perm_attr, const Dims& dims) {
  const size_t rank = dims.size();
  std::vector<int64_t> perm = perm_attr;
  if (perm.empty()) {
    perm.resize(rank);
    std::iota(perm.rbegin(), perm.rend(), 0);
  }
  check(perm.size() == rank, "Transpose: perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(rank));
  std::vector<bool> seen(rank, false);
  const std::vector<int64_t> in_strides = dense_strides(dims);
  TransposeLayout l{Dims(rank), std::vector<int64_t>(rank)};
  for (size_t i = 0; i < perm.size(); ++i) {
    const int64_t p = normalize_axis(perm[i], int64_t(rank), "Transpose");
    check(!seen[size_t(p)], "Transpose: perm repeats axis " + std::to_string(p));
    seen[size_t(p)] = true;
    perm[i] = p;
    l.out_dims[i] = dims[size_t(p)];
    l.strides[i] = in_strides[size_t(p)];
  }
  if (rank >= 3) {
    std::vector<int64_t> into_last(rank), into_first(rank);
    std::iota(into_last.begin() + 1, into_last.end() - 1, 2);
    into_last.back() = 1;
    std::iota(into_first.begin() + 2, into_first.end(), 1);
    into_first[1] = int64_t(rank) - 1;
    l.into_last = perm == into_last;
    l.into_first = perm == into_first;
  }
  return l;
}

// Sized: the executor hands it its output's buffer (the arena's), so a layout move of a large
// input does not allocate and fault in a new tensor every run.
class Transpose final : public SizedOp {
 public:
  explicit Transpose(std::vector<int64_t> perm) : perm_(std::move(perm)) {}

  std::vector<TensorDesc> output_descs(const std::vector<TensorDesc>& in) const override {
    check(!in.empty() && in[0].dtype != DType::Undefined, "Transpose: input 0 (data) is absent");
    return {{in[0].dtype, transpose_layout(perm_, in[0].dims).out_dims}};
  }

  void run_into(const Inputs& in, std::vector<Tensor>& out) const override {
    const Tensor& x = required_input(in, 0, "Transpose", "data");
    const TransposeLayout l = transpose_layout(perm_, x.dims());
    Tensor& y = out[0];
    // Into and out of channels-last (the layout pass's transposes): per-sample tiled transposes.
    if (l.into_last) return to_channels_last_into(x, y);
    if (l.into_first) return to_channels_first_into(x, y);
    const Dims& out_dims = l.out_dims;
    const std::vector<int64_t>& strides = l.strides;
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
      if (y.numel() > 0)
        transpose_strided_matrices(x.raw(), offsets, strides[r - 1], y.raw(), out_dims[r - 1], out_dims[r - 2], dtype_size(x.dtype()));
      return;
    }
    gather_strided(x, 0, strides, y);
  }

 private:
  std::vector<int64_t> perm_;
};
}  // namespace

std::unique_ptr<Op> create_transpose(const Node& node, const OpContext&) {
  return std::make_unique<Transpose>(node.attr_ints("perm"));
}

}  // namespace q8
