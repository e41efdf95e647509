// NonZero: the indices of x's non-zero elements, int64 [rank, count], in row-major order (a scalar
// is read as one element of rank 1, as numpy and ONNX Runtime do). Its output's size depends on
// the values, so it is known only after running.
#include "engine/ops/indexing.h"
#include "engine/ops/op.h"

namespace q8 {

namespace {

class NonZero final : public Op {
 public:
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "NonZero", "X");
    const Dims dims = x.rank() == 0 ? Dims{1} : x.dims();
    std::vector<int64_t> hits;
    for (int64_t i = 0; i < x.numel(); ++i)
      if (x.element_as_double(i) != 0.0) hits.push_back(i);
    const int64_t count = int64_t(hits.size()), rank = int64_t(dims.size());
    Tensor y(DType::Int64, {rank, count});
    const std::vector<int64_t> strides = dense_strides(dims);
    for (int64_t k = 0; k < count; ++k)
      for (int64_t d = 0; d < rank; ++d) y.data<int64_t>()[d * count + k] = hits[size_t(k)] / strides[size_t(d)] % dims[size_t(d)];
    return {std::move(y)};
  }
};

}  // namespace

std::unique_ptr<Op> create_non_zero(const Node&, const OpContext&) { return std::make_unique<NonZero>(); }

}  // namespace q8
