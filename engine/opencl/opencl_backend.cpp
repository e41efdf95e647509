#include "engine/opencl/opencl_backend.h"

#include "engine/opencl/ops/ops.h"

namespace q8 {

namespace {

// The backend: every op of its registry (engine/opencl/ops/ops.inc) on one device; every other
// registered op runs on the CPU for the reason the registry states.
class OpenClBackend final : public Backend {
 public:
  explicit OpenClBackend(std::shared_ptr<OpenClDevice> device) : device_(std::move(device)) {}

  std::string_view name() const override { return "opencl"; }
  std::string_view memory() const override { return device_->memory_name(); }

  std::vector<OpKey> op_types() const override {
    std::vector<OpKey> out;
    for (const ClOp& op : cl_ops()) out.push_back({std::string(op.domain), std::string(op.op_type)});
    return out;
  }

  std::vector<std::string> missing_capabilities() const override {
    std::vector<std::string> out;
    const DeviceCaps& caps = device_->caps();
    if (!caps.denormals) out.push_back(kNoDenormals);
    if (!caps.exact_divide) out.push_back(kNoExactDivide);
    if (!caps.doubles()) out.push_back(kNoDoubles);
    out.push_back(kNoChannelsLastQConv);
    return out;
  }

  Support supports(const NodeView& view) const override {
    if (const ClOp* op = find_cl_op(view.node.domain, view.node.op_type)) return op->supports(view, device_->caps());
    const ClOnCpu* cpu = cl_on_cpu(view.node.domain, view.node.op_type);
    return Support::no(cpu ? std::string(cpu->reason) : "");
  }

  std::unique_ptr<PreparedNode> create(const NodeView& view) const override {
    const ClOp* op = find_cl_op(view.node.domain, view.node.op_type);
    check(op != nullptr, "no OpenCL kernel for " + view.node.op_type);
    return op->create(device_, view);
  }

  Tensor upload(const Tensor& host) const override { return device_->upload(host); }
  Tensor download(const Tensor& on_device) const override { return device_->download(on_device); }
  void begin_timing() const override { device_->begin_timing(); }
  std::optional<DeviceTimes> end_timing() const override { return device_->end_timing(); }

 private:
  std::shared_ptr<OpenClDevice> device_;
};

}  // namespace

std::unique_ptr<Backend> make_opencl_backend(std::shared_ptr<OpenClDevice> device) {
  return std::make_unique<OpenClBackend>(std::move(device));
}

}  // namespace q8
