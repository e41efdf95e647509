// GlobalAveragePool on float32 (global_average_pool.cl): each plane summed in double by one
// work-group, in the order the CPU op sums it (engine/ops/plane_sum.h).
#include "engine/opencl/args.h"
#include "engine/opencl/ops/ops.h"
#include "kernels/abi.h"

namespace q8 {

namespace {

class ClGlobalAveragePool final : public PreparedNode {
 public:
  explicit ClGlobalAveragePool(std::shared_ptr<OpenClDevice> device) : device_(std::move(device)) {}

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    const Dims& x = in.at(0).dims;
    check(x.size() >= 3, "GlobalAveragePool: input needs rank >= 3 on OpenCL, got " + dims_to_string(x));
    Dims out(x.size(), 1);
    out[0] = x[0], out[1] = x[1];
    out_ = {DType::Float32, out};
    planes_ = x[0] * x[1];
    size_ = planes_ ? numel(x) / planes_ : 0;
    return {{out_}, 0};
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_kernel k = device_->kernel("global_average_pool");
    set_args(k, *in[0], out[0], planes_, size_);
    const size_t group = Q8_PLANE_SUM_LANES * Q8_PLANE_SUM_PLANES, groups = size_t((planes_ + Q8_PLANE_SUM_PLANES - 1) / Q8_PLANE_SUM_PLANES);
    if (planes_ > 0) device_->launch(k, {groups * group}, {group});
  }

 private:
  std::shared_ptr<OpenClDevice> device_;
  TensorDesc out_;
  cl_long planes_ = 0, size_ = 0;
};

}  // namespace

Support supports_GlobalAveragePool(const NodeView& view, const DeviceCaps& caps) {
  if (view.input_type(0) != DType::Float32) return Support::no("runs GlobalAveragePool on float32 only");
  if (!caps.denormals) return Support::no(kNoDenormals);
  if (!caps.doubles()) return Support::no(kNoDoubles);
  return Support::yes();
}

std::unique_ptr<PreparedNode> create_GlobalAveragePool(std::shared_ptr<OpenClDevice> device, const NodeView&) {
  return std::make_unique<ClGlobalAveragePool>(std::move(device));
}

}  // namespace q8
