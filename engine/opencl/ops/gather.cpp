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
        name_(view.node.describe()) {
    for (size_t i = 1; i < view.node.inputs.size(); ++i) fixed_ = fixed_ && (!view.has_input(i) || view.constant(i));
  }

  // Parameters computed as the graph runs (a Resize's sizes from a Shape) are read on the host.
  bool takes_host_input(size_t slot) const override { return slot >= 1; }

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    input_ = in.at(0);
    if (!fixed_) return {{std::nullopt}, 0};  // the output's shape comes with the parameters' values, in run
    Inputs params(constants_.begin() + std::min<size_t>(1, constants_.size()), constants_.end());
    select(params);
    return {{out_}, 0};
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    if (!fixed_) {
      std::vector<Tensor> moved;  // a parameter a device node made, brought to the host
      moved.reserve(in.size());
      Inputs params;
      std::string key = dims_to_string(input_.dims);
      for (size_t i = 1; i < in.size(); ++i) {
        const Tensor* p = in[i];
        if (p && p->on_device()) p = &moved.emplace_back(device_->download(*p));
        params.push_back(p);
        if (p) key += "|" + dims_to_string(p->dims()) + ":" + std::string(reinterpret_cast<const char*>(p->raw()), p->nbytes());
      }
      if (key != selected_for_) select(params), selected_for_ = key;  // the same values: the same selection
    }
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_long count = numel(out_.dims);
    const cl_kernel k = device_->kernel(out_.dtype == DType::Int8 ? "gather_int8" : "gather_float");
    set_args(k, *in[0], out[0], source_, count);
    device_->launch(k, {size_t(count)});
  }

 private:
  // source: the CPU op run on the element indices of the input's shape, with these parameters.
  void select(const Inputs& params) {
    const int64_t n = numel(input_.dims);
    check(n <= std::numeric_limits<int32_t>::max(), name_ + ": the OpenCL gather takes up to 2^31 - 1 input elements, got " + std::to_string(n));
    Tensor indices(DType::Int32, input_.dims);
    std::iota(indices.data<int32_t>(), indices.data<int32_t>() + n, 0);
    Inputs args = {&indices};
    args.insert(args.end(), params.begin(), params.end());
    const Tensor source = op_->run(args).at(0);
    out_ = {input_.dtype, source.dims()};
    source_ = device_->upload(source);
  }

  std::shared_ptr<OpenClDevice> device_;
  std::unique_ptr<Op> op_;
  std::vector<const Tensor*> constants_;
  std::string name_;
  bool fixed_ = true;  // every parameter is a constant
  TensorDesc input_, out_;
  std::string selected_for_;
  Tensor source_;
};

}  // namespace

Support gather_support(const NodeView& view) {
  const DType t = view.input_type(0);
  if (t != DType::Int8 && t != DType::Float32) return Support::no("runs " + view.node.op_type + " on int8 and float32 only");
  return Support::yes();
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
