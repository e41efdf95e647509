// Add, Sub, Mul, Div and Pow on float32 with broadcasting (binary.cl, abi.h's op codes), and the q8
// domain's MulQuantize (a Mul and its QuantizeLinear); a constant operand is uploaded once.
#include "engine/opencl/args.h"
#include "engine/opencl/ops/broadcast_layout.h"
#include "engine/opencl/ops/ops.h"
#include "engine/ops/broadcast.h"
#include "kernels/abi.h"

namespace q8 {

namespace {

int op_code(const std::string& op) {
  return op == "Add" ? Q8_ADD : op == "Sub" ? Q8_SUB : op == "Mul" ? Q8_MUL : op == "Div" ? Q8_DIV : Q8_POW;
}

class ClFloatBinary final : public PreparedNode {
 public:
  ClFloatBinary(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : device_(std::move(device)), name_(view.node.describe()), op_type_(view.node.op_type), op_(op_code(op_type_)),
        y_scale_(view.node.attr_float("y_scale", 0.0f)) {
    for (size_t i = 0; i < 2; ++i)
      if (view.constant(i)) constants_[i] = device_->upload(*view.constant(i));
  }

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    out_ = {quantized() ? DType::Int8 : DType::Float32, broadcast_dims(in.at(0).dims, in.at(1).dims, op_type_.c_str())};
    layout_ = device_->upload(broadcast_layout(out_.dims, in[0].dims, in[1].dims, name_));
    return {{out_}, 0};
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_long count = numel(out_.dims);
    const Tensor& a = constants_[0].empty() ? *in[0] : constants_[0];
    const Tensor& b = constants_[1].empty() ? *in[1] : constants_[1];
    const cl_kernel k = device_->kernel(quantized() ? "mul_quantize" : "binary_float");
    if (quantized()) set_args(k, a, b, out[0], count, layout_, y_scale_);
    else set_args(k, a, b, out[0], count, layout_, op_);
    device_->launch(k, {size_t(count)});
  }

 private:
  bool quantized() const { return op_type_ == "MulQuantize"; }

  std::shared_ptr<OpenClDevice> device_;
  std::string name_, op_type_;
  int op_;
  float y_scale_;  // MulQuantize's
  Tensor constants_[2];
  TensorDesc out_;
  Tensor layout_;
};

// Both operands float32, on a device that keeps subnormals; Div needs IEEE division.
Support binary_support(const NodeView& view, const DeviceCaps& caps) {
  const Node& n = view.node;
  if (view.input_type(0) != DType::Float32 || view.input_type(1) != DType::Float32) return Support::no("runs " + n.op_type + " on float32 only");
  if (!caps.denormals) return Support::no(kNoDenormals);
  if ((n.op_type == "Div" || n.op_type == "MulQuantize") && !caps.exact_divide) return Support::no(kNoExactDivide);
  return Support::yes();
}

std::unique_ptr<PreparedNode> create_binary(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClFloatBinary>(std::move(device), view);
}

}  // namespace

#define Q8_CL_BINARY(op)                                                                                                   \
  Support supports_##op(const NodeView& view, const DeviceCaps& caps) { return binary_support(view, caps); }              \
  std::unique_ptr<PreparedNode> create_##op(std::shared_ptr<OpenClDevice> device, const NodeView& view) {                 \
    return create_binary(std::move(device), view);                                                                         \
  }
Q8_CL_BINARY(Add)
Q8_CL_BINARY(Sub)
Q8_CL_BINARY(Mul)
Q8_CL_BINARY(Div)
Q8_CL_BINARY(Pow)
Q8_CL_BINARY(MulQuantize)
#undef Q8_CL_BINARY

}  // namespace q8
