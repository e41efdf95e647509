// Not: Y = !X elementwise on a bool tensor.
#include "engine/ops/elementwise.h"

namespace q8 {

namespace {

class Not final : public Op {
 public:
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "Not", "X");
    check(x.dtype() == DType::Bool, "Not: input must be bool, got " + std::string(dtype_name(x.dtype())));
    Tensor y = Tensor::uninitialized(DType::Bool, x.dims());
    for (int64_t i = 0; i < x.numel(); ++i) y.data<bool>()[i] = !x.data<bool>()[i];
    return {std::move(y)};
  }
};

}  // namespace

std::unique_ptr<Op> create_not(const Node&, const OpContext&) { return std::make_unique<Not>(); }

}  // namespace q8
