// The ops whose output is their input's buffer with other dims (engine/ops/traits.h's `view`:
// Reshape, Flatten, Squeeze, Unsqueeze, Identity), on int8 and float32, a Cast that changes
// nothing (float32 to float32) and Dropout at inference. The CPU op, run on an
// untouched buffer of the input's dims, gives those dims: once per input shape when the parameters
// are constant, at every run when the graph computes them (read on the host, as gather.cpp's).
#include "engine/opencl/ops/ops.h"
#include "engine/ops/traits.h"

namespace q8 {

namespace {

class ClView final : public PreparedNode {
 public:
  explicit ClView(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : device_(std::move(device)), op_(find_op(view.node.op_type)->create(view.node, view.op_context())), constants_(view.constants) {
    for (size_t i = 1; i < view.node.inputs.size(); ++i) fixed_ = fixed_ && (!view.has_input(i) || view.constant(i));
  }

  // Parameters computed as the graph runs (a Reshape's shape from a Shape) are read on the host.
  bool takes_host_input(size_t slot) const override { return slot >= 1; }

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    if (!fixed_) return {{std::nullopt}, 0};  // the dims come with the parameters' values, in run
    Inputs params(constants_.begin() + std::min<size_t>(1, constants_.size()), constants_.end());
    dims_ = dims_for(in.at(0), params);
    return {{TensorDesc{in[0].dtype, dims_}}, 0};
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    if (!fixed_) {
      std::vector<Tensor> moved;
      dims_ = dims_for(in[0]->desc(), host_parameters(*device_, in, moved));
    }
    out[0] = in[0]->reshaped(dims_);
  }

 private:
  // The CPU op's output dims for an input of these dims (its values unread: an untouched buffer).
  Dims dims_for(const TensorDesc& input, const Inputs& params) const {
    const Tensor probe = Tensor::uninitialized(input.dtype, input.dims);
    Inputs args = {&probe};
    args.insert(args.end(), params.begin(), params.end());
    return op_->run(args).at(0).dims();
  }

  std::shared_ptr<OpenClDevice> device_;
  std::unique_ptr<Op> op_;
  std::vector<const Tensor*> constants_;
  bool fixed_ = true;
  Dims dims_;
};

// int8 or float32; its parameters (Reshape's shape, opset 13's axes) constant or computed as the
// graph runs; an op whose traits say it is a view.
Support view_support(const NodeView& view) {
  const Node& n = view.node;
  const OpTraits* traits = find_traits(n);
  check(traits && traits->view, n.op_type + " is registered as an OpenCL view but its traits say it is none");
  if (view.input_type(0) != DType::Int8 && view.input_type(0) != DType::Float32) return Support::no("runs " + n.op_type + " on int8 and float32 only");
  return Support::yes();
}

std::unique_ptr<PreparedNode> create_view(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClView>(std::move(device), view);
}

}  // namespace

#define Q8_CL_VIEW(op)                                                                                                  \
  Support supports_##op(const NodeView& view, const DeviceCaps&) { return view_support(view); }                        \
  std::unique_ptr<PreparedNode> create_##op(std::shared_ptr<OpenClDevice> device, const NodeView& view) {              \
    return create_view(std::move(device), view);                                                                        \
  }
Q8_CL_VIEW(Reshape)
Q8_CL_VIEW(Flatten)
Q8_CL_VIEW(Squeeze)
Q8_CL_VIEW(Unsqueeze)
Q8_CL_VIEW(Identity)
#undef Q8_CL_VIEW

// Dropout at inference (engine/ops/dropout.cpp: its output is its data; a training_mode the CPU op
// refuses is refused there, when the dims are worked out) with no mask output read.
Support supports_Dropout(const NodeView& view, const DeviceCaps&) {
  const Node& n = view.node;
  if (n.outputs.size() > 1 && !n.outputs[1].empty()) return Support::no("writes its mask, which no OpenCL kernel makes yet");
  if (view.input_type(0) != DType::Int8 && view.input_type(0) != DType::Float32) return Support::no("runs Dropout on int8 and float32 only");
  return Support::yes();
}
std::unique_ptr<PreparedNode> create_Dropout(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClView>(std::move(device), view);
}

// A Cast from float32 to float32 (a float16 model's Casts once computed in float32, docs/ops.md) is
// the input itself; Casts of integers and masks work on values the host holds.
Support supports_Cast(const NodeView& view, const DeviceCaps&) {
  const DType from = view.input_type(0);
  const int to = int(view.node.attr_int("to", 0));
  if (from == DType::Float32 && to == dtype_to_onnx(DType::Float32)) return Support::yes();
  if (from != DType::Float32) return Support::no("casts shapes, indices or masks, which stay on the host");
  return Support::no("casts float32 to " + onnx_type_name(to) + ": no OpenCL kernel yet");
}
std::unique_ptr<PreparedNode> create_Cast(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClView>(std::move(device), view);
}

}  // namespace q8
