// The float32 activations that stay FP32 in a plan (activations.cl: Relu, Clip, LeakyRelu,
// HardSigmoid, HardSwish, Sigmoid, Exp, Sqrt, Tanh, Erf, Gelu, Reciprocal, Neg, Abs), as
// engine/ops/*.cpp compute them,
// with abi.h's op codes.
#include <limits>

#include "engine/ir/clip_bounds.h"
#include "engine/opencl/args.h"
#include "engine/opencl/ops/ops.h"
#include "kernels/abi.h"

namespace q8 {

namespace {

int op_code(const std::string& op) {
  if (op == "Relu") return Q8_RELU;
  if (op == "Clip") return Q8_CLIP;
  if (op == "LeakyRelu") return Q8_LEAKY_RELU;
  if (op == "HardSigmoid") return Q8_HARD_SIGMOID;
  if (op == "HardSwish") return Q8_HARD_SWISH;
  if (op == "Sigmoid") return Q8_SIGMOID;
  if (op == "Sqrt") return Q8_SQRT;
  if (op == "Tanh") return Q8_TANH;
  if (op == "Erf") return Q8_ERF;
  if (op == "Gelu") return Q8_GELU;
  if (op == "Reciprocal") return Q8_RECIPROCAL;
  if (op == "Neg") return Q8_NEG;
  if (op == "Abs") return Q8_ABS;
  return Q8_EXP;
}

class ClActivation final : public PreparedNode {
 public:
  ClActivation(std::shared_ptr<OpenClDevice> device, const NodeView& view) : device_(std::move(device)), op_(op_code(view.node.op_type)) {
    const Node& n = view.node;
    if (op_ == Q8_GELU && n.attr_string("approximate", "none") == "tanh") op_ = Q8_GELU_TANH;
    if (op_ == Q8_CLIP) {  // engine/ops/clip.cpp's defaults: ±inf as attributes, the float range as inputs
      const float inf = std::numeric_limits<float>::infinity();
      const std::optional<ClipBounds> bounds = clip_bounds(view.node, view.opset, [&](size_t i) { return view.constant(i); });
      a_ = bounds->first.value_or(view.opset < 11 ? -inf : std::numeric_limits<float>::lowest());
      b_ = bounds->second.value_or(view.opset < 11 ? inf : std::numeric_limits<float>::max());
    }
    if (op_ == Q8_LEAKY_RELU) a_ = n.attr_float("alpha", 0.01f);
    if (op_ == Q8_HARD_SIGMOID) a_ = n.attr_float("alpha", 0.2f), b_ = n.attr_float("beta", 0.5f);
    if (op_ == Q8_HARD_SWISH) a_ = 6.0f;  // the divisor, as an argument (kernels/activations.cl)
  }

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    out_ = {DType::Float32, in.at(0).dims};
    return {{out_}, 0};
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_long count = numel(out_.dims);
    const cl_kernel k = device_->kernel("activation");
    set_args(k, *in[0], out[0], count, op_, a_, b_);
    device_->launch(k, {size_t(count)});
  }

 private:
  std::shared_ptr<OpenClDevice> device_;
  int op_;
  float a_ = 0.0f, b_ = 0.0f;
  TensorDesc out_;
};

// Float32, on a device that keeps subnormals; the ops that divide need IEEE division.
Support activation_support(const NodeView& view, const DeviceCaps& caps) {
  const Node& n = view.node;
  if (view.input_type(0) != DType::Float32) return Support::no("runs " + n.op_type + " on float32 only");
  if (!caps.denormals) return Support::no(kNoDenormals);
  if ((n.op_type == "HardSwish" || n.op_type == "Sigmoid" || n.op_type == "Sqrt" || n.op_type == "Reciprocal") && !caps.exact_divide)
    return Support::no(kNoExactDivide);
  if (n.op_type == "Gelu" && n.attr_string("approximate", "none") != "none" && n.attr_string("approximate", "none") != "tanh")
    return Support::no("Gelu's approximate is neither 'none' nor 'tanh'");
  if (n.op_type == "Clip" && !clip_bounds(n, view.opset, [&](size_t i) { return view.constant(i); }))
    return Support::no("Clip's bounds are not constant float32 scalars");
  return Support::yes();
}

std::unique_ptr<PreparedNode> create_activation(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClActivation>(std::move(device), view);
}

}  // namespace

#define Q8_CL_ACTIVATION(op)                                                                                                    \
  Support supports_##op(const NodeView& view, const DeviceCaps& caps) { return activation_support(view, caps); }               \
  std::unique_ptr<PreparedNode> create_##op(std::shared_ptr<OpenClDevice> device, const NodeView& view) {                      \
    return create_activation(std::move(device), view);                                                                          \
  }
Q8_CL_ACTIVATION(Relu)
Q8_CL_ACTIVATION(Clip)
Q8_CL_ACTIVATION(LeakyRelu)
Q8_CL_ACTIVATION(HardSigmoid)
Q8_CL_ACTIVATION(HardSwish)
Q8_CL_ACTIVATION(Sigmoid)
Q8_CL_ACTIVATION(Exp)
Q8_CL_ACTIVATION(Sqrt)
Q8_CL_ACTIVATION(Tanh)
Q8_CL_ACTIVATION(Erf)
Q8_CL_ACTIVATION(Gelu)
Q8_CL_ACTIVATION(Reciprocal)
Q8_CL_ACTIVATION(Neg)
Q8_CL_ACTIVATION(Abs)
#undef Q8_CL_ACTIVATION

}  // namespace q8
