// QuantizeLinear (float32 → int8) and DequantizeLinear (int8 → float32), per tensor (quantize.cl):
// the plan's boundaries, so a plan's inputs and outputs cross as float and everything between
// stays on the device. The quantize at a plan's entry reads the graph's float input on the host
// and writes its int8 straight into the device's pinned staging memory.
#include "engine/cpu/quantize_int8.h"
#include "engine/opencl/args.h"
#include "engine/opencl/ops/ops.h"

namespace q8 {

namespace {

class ClQuantize final : public PreparedNode {
 public:
  ClQuantize(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : device_(std::move(device)), quantize_(view.node.op_type == "QuantizeLinear"), scale_(view.constant(1)->data<float>()[0]) {
    const Tensor* zp = view.has_input(2) ? view.constant(2) : nullptr;
    zero_point_ = zp ? int(zp->data<int8_t>()[0]) : 0;
  }

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    out_ = {quantize_ ? DType::Int8 : DType::Float32, in.at(0).dims};
    return {{out_}, 0};
  }

  bool takes_host_input(size_t slot) const override { return quantize_ && slot == 0; }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    const cl_long count = numel(out_.dims);
    if (quantize_ && !in[0]->on_device()) {  // quantized straight into the device's pinned staging memory
      out[0] = device_->upload_filled(DType::Int8, out_.dims, [&](std::byte* base, int64_t begin, int64_t end) {
        quantize_int8(in[0]->data<float>() + begin, reinterpret_cast<int8_t*>(base) + begin, end - begin, scale_, float(zero_point_));
      });
      return;
    }
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_kernel k = device_->kernel(quantize_ ? "quantize_linear" : "dequantize_linear");
    if (quantize_) set_args(k, *in[0], out[0], count, scale_, float(zero_point_));
    else set_args(k, *in[0], out[0], count, scale_, zero_point_);
    device_->launch(k, {size_t(count)});
  }

 private:
  std::shared_ptr<OpenClDevice> device_;
  bool quantize_;
  float scale_;
  int zero_point_ = 0;
  TensorDesc out_;
};

// Per-tensor int8 parameters that are constants, or why not.
Support quantize_support(const NodeView& view, const DeviceCaps& caps) {
  const bool quantize = view.node.op_type == "QuantizeLinear";
  const Tensor* scale = view.has_input(1) ? view.constant(1) : nullptr;
  const Tensor* zp = view.has_input(2) ? view.constant(2) : nullptr;
  if (!scale || scale->dtype() != DType::Float32 || scale->numel() != 1) return Support::no("a per-tensor constant float32 scale only");
  if (view.has_input(2) && (!zp || zp->dtype() != DType::Int8 || zp->numel() != 1)) return Support::no("an int8 per-tensor zero point only");
  if (quantize && !zp) return Support::no("no zero point: uint8 output");
  if (view.input_type(0) != (quantize ? DType::Float32 : DType::Int8)) return Support::no(quantize ? "x is not float32" : "x is not int8");
  if (quantize && !caps.exact_divide) return Support::no(kNoExactDivide);
  return Support::yes();
}

}  // namespace

Support supports_QuantizeLinear(const NodeView& view, const DeviceCaps& caps) { return quantize_support(view, caps); }
std::unique_ptr<PreparedNode> create_QuantizeLinear(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClQuantize>(std::move(device), view);
}

Support supports_DequantizeLinear(const NodeView& view, const DeviceCaps& caps) { return quantize_support(view, caps); }
std::unique_ptr<PreparedNode> create_DequantizeLinear(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClQuantize>(std::move(device), view);
}

}  // namespace q8
