// EyeLike: a 2-D tensor of the input's shape, 1 on the diagonal shifted by k (above it for k > 0)
// and 0 elsewhere, of type `dtype` (the input's by default). Reads the input's dims only.
#include "engine/ops/op.h"

namespace q8 {

namespace {

class EyeLike final : public Op {
 public:
  EyeLike(std::optional<DType> dtype, int64_t k) : dtype_(dtype), k_(k) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "EyeLike", "input");
    check(x.rank() == 2, "EyeLike: input must be 2-D, got " + dims_to_string(x.dims()));
    const DType type = dtype_.value_or(x.dtype());
    Tensor y(type, x.dims());
    const Tensor one = [&] {
      Tensor t = Tensor::scalar<float>(1.0f);
      if (type == DType::Float32) return t;
      Tensor o(type, {});
      visit_dtype(type, [&]<typename T>() {
        if constexpr (std::is_same_v<T, Float16>) o.data<T>()[0] = float_to_half(1.0f);
        else o.data<T>()[0] = T(1);
      });
      return o;
    }();
    const size_t elem = dtype_size(type);
    for (int64_t i = 0; i < x.dim(0); ++i) {
      const int64_t j = i + k_;
      if (j >= 0 && j < x.dim(1)) copy_bytes(y.raw() + size_t(i * x.dim(1) + j) * elem, one.raw(), elem);
    }
    return {std::move(y)};
  }
  bool reads_values(size_t) const override { return false; }

 private:
  std::optional<DType> dtype_;
  int64_t k_;
};

}  // namespace

std::unique_ptr<Op> create_eye_like(const Node& node, const OpContext&) {
  std::optional<DType> dtype;
  if (node.has("dtype")) dtype = dtype_from_onnx(int(node.attr_int("dtype", 0)), node.describe() + ": 'dtype'");
  return std::make_unique<EyeLike>(dtype, node.attr_int("k", 0));
}

}  // namespace q8
