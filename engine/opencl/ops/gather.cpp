#include "engine/opencl/ops/gather.h"

#include <limits>
#include <numeric>

#include "engine/opencl/args.h"
#include "engine/opencl/ops/ops.h"
#include "engine/ops/op.h"

namespace q8 {

namespace {

class ClGather final : public PreparedNode {
 public:
  ClGather(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : device_(std::move(device)), op_(find_op(view.node.op_type)->create(view.node, view.op_context())), constants_(view.constants),
        name_(view.node.describe()) {}

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    const int64_t n = numel(in.at(0).dims);
    check(n <= std::numeric_limits<int32_t>::max(), name_ + ": the OpenCL gather takes up to 2^31 - 1 input elements, got " + std::to_string(n));
    Tensor indices(DType::Int32, in[0].dims);
    std::iota(indices.data<int32_t>(), indices.data<int32_t>() + n, 0);
    Inputs args = {&indices};
    for (size_t i = 1; i < constants_.size(); ++i) args.push_back(constants_[i]);
    const Tensor source = op_->run(args).at(0);
    out_ = {in[0].dtype, source.dims()};
    source_ = device_->upload(source);
    return {{out_}, 0};
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_long count = numel(out_.dims);
    const cl_kernel k = device_->kernel(out_.dtype == DType::Int8 ? "gather_int8" : "gather_float");
    set_args(k, *in[0], out[0], source_, count);
    device_->launch(k, {size_t(count)});
  }

 private:
  std::shared_ptr<OpenClDevice> device_;
  std::unique_ptr<Op> op_;
  std::vector<const Tensor*> constants_;
  std::string name_;
  TensorDesc out_;
  Tensor source_;
};

}  // namespace

Support gather_support(const NodeView& view) {
  const DType t = view.input_type(0);
  if (t != DType::Int8 && t != DType::Float32) return Support::no("runs " + view.node.op_type + " on int8 and float32 only");
  return constant_parameters(view);
}

std::unique_ptr<PreparedNode> create_gather(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClGather>(std::move(device), view);
}

Support supports_Transpose(const NodeView& view, const DeviceCaps&) { return gather_support(view); }
std::unique_ptr<PreparedNode> create_Transpose(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return create_gather(std::move(device), view);
}

Support supports_Slice(const NodeView& view, const DeviceCaps&) { return gather_support(view); }
std::unique_ptr<PreparedNode> create_Slice(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return create_gather(std::move(device), view);
}

}  // namespace q8
