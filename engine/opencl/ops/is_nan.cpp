// IsNaN of float32 values on the device (kernels/masks.cl), bool out: a softmax's NaN rows found
// where the softmax ran, for the Where that zeroes them.
#include "engine/opencl/args.h"
#include "engine/opencl/ops/ops.h"

namespace q8 {

namespace {

class ClIsNan final : public PreparedNode {
 public:
  explicit ClIsNan(std::shared_ptr<OpenClDevice> device) : device_(std::move(device)) {}

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    out_ = {DType::Bool, in.at(0).dims};
    return {{out_}, 0};
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_long count = numel(out_.dims);
    if (count == 0) return;
    const cl_kernel k = device_->kernel("is_nan_float");
    set_args(k, *in[0], out[0], count);
    device_->launch(k, {size_t(count)});
  }

 private:
  std::shared_ptr<OpenClDevice> device_;
  TensorDesc out_;
};

}  // namespace

Support supports_IsNaN(const NodeView& view, const DeviceCaps&) {
  if (view.input_type(0) != DType::Float32) return Support::no("works on shapes, indices or masks, which stay on the host");
  if (view.constant(0)) return Support::no("its input is a constant");
  return Support::yes();
}

std::unique_ptr<PreparedNode> create_IsNaN(std::shared_ptr<OpenClDevice> device, const NodeView&) {
  return std::make_unique<ClIsNan>(std::move(device));
}

}  // namespace q8
