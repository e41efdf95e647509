// MaxPool on int8 (max_pool.cl): a plan's carrier, 2-D windows, no Indices output.
#include "engine/opencl/args.h"
#include "engine/opencl/ops/ops.h"
#include "engine/ops/pooling.h"
#include "kernels/abi.h"

namespace q8 {

namespace {

class ClMaxPool final : public PreparedNode {
 public:
  ClMaxPool(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : device_(std::move(device)), window_(Window::from_node(view.node)), name_(view.node.describe()) {}

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    const PoolShape p = resolve_pool(window_, in.at(0).dims, name_);
    check(p.in_spatial.size() == 2, name_ + ": the OpenCL MaxPool takes 2 spatial axes");
    const ResolvedWindow& w = p.window;
    out_ = {DType::Int8, p.out_dims};
    std::vector<int32_t> g(Q8_POOL_SIZE);
    for (size_t a = 0; a < 2; ++a) {
      g[Q8_POOL_IN + a] = int32_t(p.in_spatial[a]), g[Q8_POOL_OUT + a] = int32_t(w.output[a]);
      g[Q8_POOL_KERNEL + a] = int32_t(w.kernel[a]), g[Q8_POOL_STRIDES + a] = int32_t(w.strides[a]);
      g[Q8_POOL_DILATIONS + a] = int32_t(w.dilations[a]), g[Q8_POOL_PADS + a] = int32_t(w.pad_begin[a]);
    }
    geometry_ = device_->upload(Tensor::from_vector<int32_t>({Q8_POOL_SIZE}, g));
    return {{out_}, 0};
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_kernel k = device_->kernel("max_pool_int8");
    set_args(k, *in[0], out[0], geometry_);
    device_->launch(k, {size_t(out_.dims[2] * out_.dims[3]), size_t(out_.dims[0] * out_.dims[1])});
  }

 private:
  std::shared_ptr<OpenClDevice> device_;
  Window window_;
  std::string name_;
  TensorDesc out_;
  Tensor geometry_;
};

}  // namespace

Support supports_MaxPool(const NodeView& view, const DeviceCaps&) {
  const Node& n = view.node;
  if (view.input_type(0) != DType::Int8) return Support::no("runs MaxPool on int8 only");
  if (n.outputs.size() > 1 && !n.outputs[1].empty()) return Support::no("MaxPool's Indices output");
  if (n.attr_ints("kernel_shape").size() != 2) return Support::no("the OpenCL MaxPool takes 2 spatial axes");
  return Support::yes();
}

std::unique_ptr<PreparedNode> create_MaxPool(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClMaxPool>(std::move(device), view);
}

}  // namespace q8
