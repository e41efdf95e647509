// The ops whose output is their input's buffer with other dims (engine/ops/traits.h's `view`:
// Reshape, Flatten, Squeeze, Unsqueeze, Identity), on int8 and float32. The CPU op, run once per
// input shape on a zero tensor, gives those dims.
#include "engine/opencl/ops/ops.h"
#include "engine/ops/traits.h"

namespace q8 {

namespace {

class ClView final : public PreparedNode {
 public:
  explicit ClView(const NodeView& view) : op_(find_op(view.node.op_type)->create(view.node, view.op_context())), constants_(view.constants) {}

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    const Tensor probe(in.at(0).dtype, in.at(0).dims);
    Inputs args = {&probe};
    for (size_t i = 1; i < constants_.size(); ++i) args.push_back(constants_[i]);
    dims_ = op_->run(args).at(0).dims();
    return {{TensorDesc{in[0].dtype, dims_}}, 0};
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override { out[0] = in[0]->reshaped(dims_); }

 private:
  std::unique_ptr<Op> op_;
  std::vector<const Tensor*> constants_;
  Dims dims_;
};

// int8 or float32, with constant parameters (Reshape's shape, opset 13's axes); an op whose traits
// say it is a view.
Support view_support(const NodeView& view) {
  const Node& n = view.node;
  const OpTraits* traits = find_traits(n);
  check(traits && traits->view, n.op_type + " is registered as an OpenCL view but its traits say it is none");
  if (view.input_type(0) != DType::Int8 && view.input_type(0) != DType::Float32) return Support::no("runs " + n.op_type + " on int8 and float32 only");
  return constant_parameters(view);
}

std::unique_ptr<PreparedNode> create_view(std::shared_ptr<OpenClDevice>, const NodeView& view) { return std::make_unique<ClView>(view); }

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

}  // namespace q8
