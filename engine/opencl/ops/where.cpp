// Where on float32 values with a bool condition (kernels/masks.cl), numpy broadcasting over its
// three operands: an attention mask applied to scores, NaN rows of a softmax zeroed. Constant
// operands are uploaded once; a condition the host computed (a mask from the ids) is uploaded.
#include "engine/opencl/args.h"
#include "engine/opencl/ops/broadcast_layout.h"
#include "engine/opencl/ops/ops.h"
#include "engine/ops/broadcast.h"

namespace q8 {

namespace {

class ClWhere final : public PreparedNode {
 public:
  ClWhere(std::shared_ptr<OpenClDevice> device, const NodeView& view) : device_(std::move(device)), name_(view.node.describe()) {
    for (size_t i = 0; i < 3; ++i)
      if (view.constant(i)) constants_[i] = device_->upload(*view.constant(i));
  }

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    out_ = {DType::Float32, broadcast_dims(broadcast_dims(in.at(0).dims, in.at(1).dims, "Where"), in.at(2).dims, "Where")};
    layout_cx_ = device_->upload(broadcast_layout(out_.dims, in[0].dims, in[1].dims, name_));
    layout_y_ = device_->upload(broadcast_layout(out_.dims, in[2].dims, in[2].dims, name_));
    return {{out_}, 0};
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_long count = numel(out_.dims);
    if (count == 0) return;
    const auto operand = [&](size_t i) -> const Tensor& { return constants_[i].empty() ? *in[i] : constants_[i]; };
    const cl_kernel k = device_->kernel("where_float");
    set_args(k, operand(0), operand(1), operand(2), out[0], count, layout_cx_, layout_y_);
    device_->launch(k, {size_t(count)});
  }

 private:
  std::shared_ptr<OpenClDevice> device_;
  std::string name_;
  Tensor constants_[3];
  TensorDesc out_;
  Tensor layout_cx_, layout_y_;
};

}  // namespace

Support supports_Where(const NodeView& view, const DeviceCaps&) {
  if (view.input_type(0) != DType::Bool || view.input_type(1) != DType::Float32 || view.input_type(2) != DType::Float32)
    return Support::no("works on shapes, indices or masks, which stay on the host");
  return Support::yes();
}

std::unique_ptr<PreparedNode> create_Where(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClWhere>(std::move(device), view);
}

}  // namespace q8
