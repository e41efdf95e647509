// CumSum: running sums of x along axis (a scalar input), in x's type (float32, int32, int64),
// summed in index order; exclusive = 1 leaves out each element itself, reverse = 1 sums from the end.
#include "engine/ops/indexing.h"
#include "engine/ops/op.h"

namespace q8 {

namespace {

class CumSum final : public Op {
 public:
  CumSum(bool exclusive, bool reverse) : exclusive_(exclusive), reverse_(reverse) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "CumSum", "x");
    const Tensor& a = required_input(in, 1, "CumSum", "axis");
    check(a.numel() == 1, "CumSum: axis must be a scalar, got " + dims_to_string(a.dims()));
    const size_t axis = size_t(normalize_axis(a.to_int64s()[0], int64_t(x.rank()), "CumSum"));
    check(x.dtype() == DType::Float32 || x.dtype() == DType::Int32 || x.dtype() == DType::Int64,
          "CumSum: type " + std::string(dtype_name(x.dtype())) + " is not supported (float32, int32, int64)");
    Tensor y(x.dtype(), x.dims());
    const int64_t len = x.dim(axis), inner = span_size(x.dims(), axis + 1, x.rank()), outer = span_size(x.dims(), 0, axis);
    visit_numeric(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      T* py = y.data<T>();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          T sum = 0;
          for (int64_t k = 0; k < len; ++k) {
            const int64_t j = reverse_ ? len - 1 - k : k;
            const int64_t at = (o * len + j) * inner + i;
            if (exclusive_) py[at] = sum, sum = T(sum + px[at]);
            else sum = T(sum + px[at]), py[at] = sum;
          }
        }
    });
    return {std::move(y)};
  }

 private:
  bool exclusive_, reverse_;
};

}  // namespace

std::unique_ptr<Op> create_cum_sum(const Node& node, const OpContext&) {
  return std::make_unique<CumSum>(node.attr_int("exclusive", 0) != 0, node.attr_int("reverse", 0) != 0);
}

}  // namespace q8
