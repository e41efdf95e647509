// The adapter from an Op to a prepared node, and the host backend's copies (there are none).
#include "engine/exec/backend.h"

namespace q8 {

namespace {
class OpNode final : public PreparedNode {
 public:
  explicit OpNode(std::unique_ptr<Op> op) : op_(std::move(op)) {}

  Reshaped reshape(const std::vector<TensorDesc>& inputs) override {
    Reshaped r;
    if (std::optional<std::vector<TensorDesc>> descs = op_->reshape(inputs)) r.outputs.assign(descs->begin(), descs->end());
    return r;
  }

  void run(const Inputs& inputs, std::vector<Tensor>& outputs, std::span<std::byte>) override { op_->run_into(inputs, outputs); }
  bool reads_input_values(size_t slot) const override { return op_->reads_values(slot); }

 private:
  std::unique_ptr<Op> op_;
};
}  // namespace

std::unique_ptr<PreparedNode> prepared_op(std::unique_ptr<Op> op) { return std::make_unique<OpNode>(std::move(op)); }

Tensor Backend::upload(const Tensor& host) const {
  check(memory() == kHostMemory, std::string(name()) + " has memory of its own but no way to upload to it");
  return host;
}

Tensor Backend::download(const Tensor& on_device) const {
  check(memory() == kHostMemory, std::string(name()) + " has memory of its own but no way to download from it");
  return on_device;
}

}  // namespace q8
