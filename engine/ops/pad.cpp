// Pad: pads = [begin…, end…] per axis (negative values crop). Modes: constant (value, 0 by
// default), reflect (mirror without repeating the edge), edge (repeat the edge), wrap (opset 19:
// continue from the other end). Opset < 11: pads and value are attributes; from 11: inputs 1
// (pads) and 2 (constant_value); from 18 input 3 (axes) names the axes pads speaks of.
#include <cstring>

#include "engine/cpu/parallel.h"
#include "engine/ops/broadcast.h"
#include "engine/ops/op.h"

namespace q8 {

namespace {
class Pad final : public Op {
 public:
  Pad(const Node& node, int64_t opset) : attr_form_(opset < 11), mode_(node.attr_string("mode", "constant")), name_(node.describe()) {
    check(mode_ == "constant" || mode_ == "reflect" || mode_ == "edge" || mode_ == "wrap",
          name_ + ": mode '" + mode_ + "' is not constant, reflect, edge or wrap");
    if (attr_form_) pads_ = node.attr_ints(opset < 2 ? "paddings" : "pads"), value_ = node.attr_float("value", 0.0f);
  }

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "Pad", "data");
    std::vector<int64_t> pads = pads_;
    Tensor value = Tensor::scalar<float>(value_);
    if (!attr_form_) {
      pads = required_input(in, 1, "Pad", "pads").to_int64s();
      if (const Tensor* v = optional_input(in, 2); v && v->numel() > 0) value = *v;
      if (const Tensor* a = optional_input(in, 3)) pads = pads_of_axes(pads, a->to_int64s(), x.rank());
    }
    const size_t rank = x.rank();
    check(pads.size() == 2 * rank, name_ + ": pads has " + std::to_string(pads.size()) + " values for rank " + std::to_string(rank));
    Dims out_dims(rank);
    for (size_t d = 0; d < rank; ++d) {
      out_dims[d] = x.dim(d) + pads[d] + pads[d + rank];
      check(out_dims[d] >= 0, name_ + ": pads crop axis " + std::to_string(d) + " below zero");
      if (mode_ == "reflect") check(x.dim(d) > 1 || (pads[d] <= 0 && pads[d + rank] <= 0),
                                    name_ + ": reflect padding needs at least 2 elements on axis " + std::to_string(d));
      if (mode_ == "edge" || mode_ == "wrap")
        check(x.dim(d) > 0 || out_dims[d] == 0, name_ + ": " + mode_ + " padding of an empty axis");
    }
    Tensor y(x.dtype(), out_dims);
    const size_t elem = dtype_size(x.dtype());
    check(value.dtype() == x.dtype() || attr_form_ || value.dtype() == DType::Float32, name_ + ": constant_value type differs from data");
    std::vector<std::byte> fill(elem);
    if (value.dtype() == x.dtype()) copy_bytes(fill.data(), value.raw(), elem);
    else visit_dtype(x.dtype(), [&]<typename T>() {
      if constexpr (std::is_same_v<T, Float16>) { Float16 h = float_to_half(value.data<float>()[0]); copy_bytes(fill.data(), &h, elem); }
      else { T v = T(value.data<float>()[0]); copy_bytes(fill.data(), &v, elem); }
    });
    if (y.numel() == 0) return {std::move(y)};
    if (rank == 0) return {x.clone()};
    std::vector<int64_t> in_strides(rank, 1);
    for (size_t d = rank; d-- > 1;) in_strides[d - 1] = in_strides[d] * x.dim(d);
    // Per axis and output index: the source index, or -1 for the constant.
    std::vector<std::vector<int64_t>> source(rank);
    for (size_t d = 0; d < rank; ++d)
      for (int64_t o = 0; o < out_dims[d]; ++o) source[d].push_back(source_index(o - pads[d], x.dim(d)));
    const int64_t inner = out_dims[rank - 1], rows = y.numel() / inner;
    const std::vector<int64_t>& last = source[rank - 1];
    parallel_for(rows, std::max<int64_t>(1, kParallelGrain / inner), [&](int64_t r0, int64_t r1) {
      for (int64_t row = r0; row < r1; ++row) {
        int64_t base = 0;
        bool outside = false;
        for (int64_t rest = row, d = int64_t(rank) - 2; d >= 0; --d) {
          const int64_t i = source[size_t(d)][size_t(rest % out_dims[size_t(d)])];
          rest /= out_dims[size_t(d)];
          outside = outside || i < 0;
          base += i * in_strides[size_t(d)];
        }
        std::byte* dst = y.raw() + size_t(row * inner) * elem;
        for (int64_t j = 0; j < inner; ++j) {
          const bool fill_here = outside || last[size_t(j)] < 0;
          copy_bytes(dst + size_t(j) * elem, fill_here ? fill.data() : x.raw() + size_t(base + last[size_t(j)]) * elem, elem);
        }
      }
    });
    return {std::move(y)};
  }

 private:
  // Pads of every axis from pads [begin…, end…] of the given axes (0 for the others).
  std::vector<int64_t> pads_of_axes(const std::vector<int64_t>& pads, const std::vector<int64_t>& axes, size_t rank) const {
    check(pads.size() == 2 * axes.size(), name_ + ": pads has " + std::to_string(pads.size()) + " values for " +
                                              std::to_string(axes.size()) + " axes");
    std::vector<int64_t> all(2 * rank, 0);
    std::vector<bool> seen(rank, false);
    for (size_t k = 0; k < axes.size(); ++k) {
      const size_t d = size_t(normalize_axis(axes[k], int64_t(rank), "Pad"));
      check(!seen[d], name_ + ": axes names axis " + std::to_string(d) + " twice");
      seen[d] = true;
      all[d] = pads[k], all[d + rank] = pads[k + axes.size()];
    }
    return all;
  }

  // The input index read for index i of an axis of n elements (i may lie outside [0, n)), or -1
  // where the constant fills.
  int64_t source_index(int64_t i, int64_t n) const {
    if (i >= 0 && i < n) return i;
    if (mode_ == "constant") return -1;
    if (mode_ == "edge") return i < 0 ? 0 : n - 1;
    if (mode_ == "wrap") return ((i % n) + n) % n;
    const int64_t period = 2 * (n - 1);  // reflect
    i = ((i % period) + period) % period;
    return i >= n ? period - i : i;
  }

  bool attr_form_;
  std::string mode_;
  std::vector<int64_t> pads_;
  float value_ = 0;
  std::string name_;
};
}  // namespace

std::unique_ptr<Op> create_pad(const Node& node, const OpContext& ctx) { return std::make_unique<Pad>(node, ctx.opset); }

}  // namespace q8
