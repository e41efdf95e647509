// Softmax on float32 (kernels/softmax.cl): one work-item per row, the host's arithmetic.
#include "engine/ops/softmax.h"
#include "engine/opencl/args.h"
#include "engine/opencl/ops/ops.h"
#include "kernels/abi.h"

namespace q8 {

namespace {

class ClSoftmax final : public PreparedNode {
 public:
  ClSoftmax(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : device_(std::move(device)), axis_(softmax_axis(view.node, view.opset)) {}

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    out_ = {DType::Float32, in.at(0).dims};
    rows_ = softmax_rows(out_.dims, axis_);
    return {{out_}, 0};
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_long rows = rows_.outer * rows_.inner, len = rows_.len, inner = rows_.inner;
    const cl_kernel k = device_->kernel("softmax");
    set_args(k, *in[0], out[0], rows, len, inner);
    device_->launch(k, {size_t(rows) * Q8_PLANE_SUM_LANES}, {Q8_PLANE_SUM_LANES});  // a row a work-group
  }

 private:
  std::shared_ptr<OpenClDevice> device_;
  SoftmaxAxis axis_;
  SoftmaxRows rows_;
  TensorDesc out_;
};

}  // namespace

Support supports_Softmax(const NodeView& view, const DeviceCaps& caps) {
  if (view.input_type(0) != DType::Float32) return Support::no("runs Softmax on float32 only");
  if (!caps.doubles()) return Support::no(kNoDoubles);
  if (!caps.denormals) return Support::no(kNoDenormals);
  return Support::yes();
}

std::unique_ptr<PreparedNode> create_Softmax(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClSoftmax>(std::move(device), view);
}

}  // namespace q8
