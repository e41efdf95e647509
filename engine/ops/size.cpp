// Size: the number of elements of the input, an int64 scalar. Reads the input's dims only.
#include "engine/ops/op.h"

namespace q8 {

namespace {

class Size final : public Op {
 public:
  std::vector<Tensor> run(const Inputs& in) const override {
    return {Tensor::scalar<int64_t>(required_input(in, 0, "Size", "data").numel())};
  }
  bool reads_values(size_t) const override { return false; }
};

}  // namespace

std::unique_ptr<Op> create_size(const Node&, const OpContext&) { return std::make_unique<Size>(); }

}  // namespace q8
