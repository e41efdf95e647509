// Concat: joins inputs along axis (required; negative allowed from opset 11).
#include <algorithm>
#include <cstring>

#include "engine/ops/concat.h"

#include "engine/cpu/parallel.h"

namespace q8 {

TensorDesc concat_output(const std::vector<TensorDesc>& in, int64_t axis_attr) {
  check(!in.empty(), "Concat: no inputs");
  const TensorDesc& first = in[0];
  const size_t axis = size_t(normalize_axis(axis_attr, int64_t(first.dims.size()), "Concat"));
  Dims out_dims = first.dims;
  out_dims[axis] = 0;
  for (size_t k = 0; k < in.size(); ++k) {
    const TensorDesc& t = in[k];
    check(t.dtype == first.dtype && t.dims.size() == first.dims.size(), "Concat: input " + std::to_string(k) +
                                                                          " differs from input 0 in type or rank");
    for (size_t d = 0; d < t.dims.size(); ++d)
      check(d == axis || t.dims[d] == first.dims[d], "Concat: input " + std::to_string(k) + " of shape " + dims_to_string(t.dims) +
                                                         " does not match " + dims_to_string(first.dims) + " off axis " + std::to_string(axis));
    out_dims[axis] += t.dims[axis];
  }
  return {first.dtype, out_dims};
}

ConcatRows concat_rows(const Dims& out, size_t axis) {
  ConcatRows r;
  for (size_t d = 0; d < axis; ++d) r.outer *= out[d];
  for (size_t d = axis + 1; d < out.size(); ++d) r.inner_rest *= out[d];
  r.inner = out[axis] * r.inner_rest;
  return r;
}

namespace {
class Concat final : public Op {
 public:
  explicit Concat(int64_t axis) : axis_(axis) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& first = required_input(in, 0, "Concat", "inputs");
    for (size_t k = 0; k < in.size(); ++k) required_input(in, k, "Concat", "inputs");
    const Dims out_dims = concat_output(describe(in), axis_).dims;
    const size_t axis = size_t(normalize_axis(axis_, int64_t(first.rank()), "Concat"));
    Tensor y = Tensor::uninitialized(first.dtype(), out_dims);
    const int64_t outer = concat_rows(out_dims, axis).outer;
    if (outer == 0 || y.nbytes() == 0) return {std::move(y)};
    // An output row is each input's row in turn; starts[k] is input k's place in it.
    const int64_t out_row = int64_t(y.nbytes()) / outer;
    std::vector<int64_t> starts(1, 0);
    for (const Tensor* t : in) starts.push_back(starts.back() + int64_t(t->nbytes()) / outer);
    // Output bytes split between the threads (64 KB a task at least), each piece copied from the
    // input whose row holds it.
    parallel_for(int64_t(y.nbytes()), 65536, [&](int64_t b, int64_t e) {
      while (b < e) {
        const int64_t o = b / out_row, at = b % out_row;
        const size_t k = size_t(std::upper_bound(starts.begin(), starts.end(), at) - starts.begin()) - 1;
        const int64_t row = starts[k + 1] - starts[k], from = at - starts[k], n = std::min(e - b, row - from);
        copy_bytes(y.raw() + b, in[k]->raw() + o * row + from, size_t(n));
        b += n;
      }
    });
    return {std::move(y)};
  }

 private:
  int64_t axis_;
};
}  // namespace

std::unique_ptr<Op> create_concat(const Node& node, const OpContext&) {
  check(node.has("axis"), node.describe() + ": attribute 'axis' is required");
  return std::make_unique<Concat>(node.attr_int("axis", 0));
}

}  // namespace q8
