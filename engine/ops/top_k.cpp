// TopK: the K largest (largest = 1, the default) or smallest values along axis (−1 by default),
// and their indices (int64). Equal values keep index order (the lower index first), and the
// results are sorted best first whether or not `sorted` asks (ONNX leaves the order free then).
// NaN counts as larger than every number. K is a one-element int64 input (an attribute before
// opset 10).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/ops/indexing.h"
#include "engine/ops/op.h"

namespace q8 {

namespace {

class TopK final : public Op {
 public:
  TopK(int64_t axis, bool largest, int64_t k_attribute) : axis_(axis), largest_(largest), k_attribute_(k_attribute) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "TopK", "X");
    int64_t k = k_attribute_;
    if (k < 0) {
      const Tensor& kt = required_input(in, 1, "TopK", "K");
      check(kt.numel() == 1, "TopK: K must hold one value, got " + dims_to_string(kt.dims()));
      k = kt.to_int64s()[0];
    }
    check(x.rank() >= 1, "TopK: X must have rank ≥ 1");
    const size_t axis = size_t(normalize_axis(axis_, int64_t(x.rank()), "TopK"));
    const int64_t len = x.dim(axis), inner = span_size(x.dims(), axis + 1, x.rank()), outer = span_size(x.dims(), 0, axis);
    check(k >= 0 && k <= len, "TopK: K = " + std::to_string(k) + " is outside [0, " + std::to_string(len) + "] (axis " +
                                  std::to_string(axis) + ")");
    Dims out = x.dims();
    out[axis] = k;
    Tensor values(x.dtype(), out), indices(DType::Int64, out);
    const Tensor wide = x.dtype() == DType::Float16 ? x.widened() : x;
    check(wide.dtype() != DType::Bool, "TopK: input type bool is not supported");
    visit_numeric(wide.dtype(), [&]<typename T>() {
      const T* px = wide.data<T>();
      std::vector<int64_t> order(static_cast<size_t>(len));
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          auto at = [&](int64_t j) { return px[(o * len + j) * inner + i]; };
          std::iota(order.begin(), order.end(), 0);
          std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return before(at(a), at(b)); });
          for (int64_t r = 0; r < k; ++r) {
            const int64_t dst = (o * k + r) * inner + i, src = (o * len + order[size_t(r)]) * inner + i;
            indices.data<int64_t>()[dst] = order[size_t(r)];
            copy_bytes(values.raw() + size_t(dst) * dtype_size(x.dtype()), x.raw() + size_t(src) * dtype_size(x.dtype()),
                       dtype_size(x.dtype()));
          }
        }
    });
    return {std::move(values), std::move(indices)};
  }

 private:
  // Whether a ranks before b.
  template <typename T>
  bool before(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a) || std::isnan(b)) return largest_ ? std::isnan(a) && !std::isnan(b) : !std::isnan(a) && std::isnan(b);
    }
    return largest_ ? a > b : a < b;
  }

  int64_t axis_;
  bool largest_;
  int64_t k_attribute_;  // opset < 10; −1 from 10 (K is input 1)
};

}  // namespace

std::unique_ptr<Op> create_top_k(const Node& node, const OpContext& ctx) {
  return std::make_unique<TopK>(node.attr_int("axis", -1), node.attr_int("largest", 1) != 0, ctx.opset < 10 ? node.attr_int("k", 0) : -1);
}

}  // namespace q8
