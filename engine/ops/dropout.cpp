// Dropout at inference: output = data, mask = all true. Training mode (the training_mode input
// set true) is the same when the ratio (input 1, 0.5 by default) is 0, as torchvision's Swin
// exports it; with any other ratio it is refused: q8 runs inference only.
#include "engine/ops/op.h"

namespace q8 {

namespace {
class Dropout final : public Op {
 public:
  explicit Dropout(size_t outputs) : outputs_(outputs) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "Dropout", "data");
    if (const Tensor* training = optional_input(in, 2); training && training->numel() == 1 && training->values<bool>()[0]) {
      const Tensor* ratio = optional_input(in, 1);
      check(ratio && ratio->numel() == 1 && ratio->element_as_double(0) == 0.0,
            "Dropout: training_mode=true with a ratio other than 0 is not supported (inference only)");
    }
    std::vector<Tensor> out{x};
    if (outputs_ > 1) {
      Tensor mask(DType::Bool, x.dims());
      std::fill_n(mask.data<bool>(), mask.numel(), true);
      out.push_back(std::move(mask));
    }
    return out;
  }

 private:
  size_t outputs_;
};
}  // namespace

std::unique_ptr<Op> create_dropout(const Node& node, const OpContext&) {
  return std::make_unique<Dropout>(node.outputs.size());
}

}  // namespace q8
