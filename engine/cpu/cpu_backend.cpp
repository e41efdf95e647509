#include "engine/cpu/cpu_backend.h"

namespace q8 {

namespace {

class CpuNode final : public PreparedNode {
 public:
  explicit CpuNode(std::unique_ptr<Op> op) : op_(std::move(op)) {}
  std::vector<Tensor> run(const Inputs& inputs) override { return op_->run(inputs); }

 private:
  std::unique_ptr<Op> op_;
};

}  // namespace

std::unique_ptr<PreparedNode> prepared_op(std::unique_ptr<Op> op) { return std::make_unique<CpuNode>(std::move(op)); }

namespace {

class CpuBackend final : public Backend {
 public:
  std::string_view name() const override { return "cpu"; }
  bool supports(const Node& node) const override { return node.domain.empty() && find_op(node.op_type) != nullptr; }
  std::unique_ptr<PreparedNode> prepare(const Node& node, const OpContext& ctx) const override {
    const OpInfo* info = find_op(node.op_type);
    check(info && node.domain.empty(), "op " + node.op_type + " is not supported");
    return prepared_op(info->create(node, ctx));
  }
};

}  // namespace

const Backend& cpu_backend() {
  static const CpuBackend backend;
  return backend;
}

}  // namespace q8
