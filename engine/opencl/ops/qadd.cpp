// QAdd on OpenCL (qadd.cl): z_q = clamp(rne(fma((float)a, A, (float)b · B)), lo, hi) with numpy
// broadcasting; qadd_same for operands of the output's shape, 16 values a work-item.
#include "engine/opencl/ops/broadcast_layout.h"
#include "engine/opencl/ops/int8_node.h"

namespace q8 {

namespace {

class ClQAdd final : public ClInt8Node {
 public:
  ClQAdd(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : ClInt8Node(std::move(device), view), a_scale_(view.node.attr_float("a_scale", 0.0f)), b_scale_(view.node.attr_float("b_scale", 0.0f)),
        lo_(int(view.node.attr_int("lo", -128))), hi_(int(view.node.attr_int("hi", 127))) {}

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_long count = numel(out_.dims);
    const cl_kernel k = device_->kernel(same_ ? "qadd_same" : "qadd");
    if (same_) set_args(k, *in[0], *in[1], out[0], count, a_scale_, b_scale_, lo_, hi_);
    else set_args(k, *in[0], *in[1], out[0], count, layout_, a_scale_, b_scale_, lo_, hi_);
    device_->launch(k, {size_t(same_ ? (count + 15) / 16 : count)});  // qadd_same: 16 values a work-item
  }

 private:
  void prepare(const std::vector<TensorDesc>& inputs) override {
    layout_ = device_->upload(broadcast_layout(out_.dims, inputs[0].dims, inputs[1].dims, name_));
    same_ = inputs[0].dims == out_.dims && inputs[1].dims == out_.dims;
  }

  float a_scale_, b_scale_;
  int lo_, hi_;
  bool same_ = false;
  Tensor layout_;
};

}  // namespace

Support supports_QAdd(const NodeView& view, const DeviceCaps&) { return int8_support(view); }

std::unique_ptr<PreparedNode> create_QAdd(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClQAdd>(std::move(device), view);
}

}  // namespace q8
