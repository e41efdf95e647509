// LayerNormalization on float32 (kernels/layer_normalization.cl): one work-item per row, the
// host's arithmetic, so its outputs are the CPU's bit for bit. Scale and B are constants,
// broadcast to the normalized dims once and uploaded; one output (Y).
#include "engine/opencl/args.h"
#include "engine/opencl/ops/ops.h"
#include "kernels/abi.h"
#include "engine/ops/broadcast.h"

namespace q8 {

namespace {

class ClLayerNormalization final : public PreparedNode {
 public:
  ClLayerNormalization(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : device_(std::move(device)), view_axis_(view.node.attr_int("axis", -1)), epsilon_(view.node.attr_float("epsilon", 1e-5f)),
        name_(view.node.describe()), scale_(*view.constant(1)) {
    if (view.node.inputs.size() > 2 && !view.node.inputs[2].empty()) bias_ = *view.constant(2);
  }

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    out_ = {DType::Float32, in.at(0).dims};
    const int64_t rank = int64_t(out_.dims.size());
    const int64_t axis = view_axis_ < 0 ? view_axis_ + rank : view_axis_;
    check(axis >= 0 && axis < rank, name_ + ": axis " + std::to_string(view_axis_) + " is outside rank " + std::to_string(rank));
    rows_ = 1, len_ = 1;
    Dims norm;
    for (int64_t d = 0; d < rank; ++d) {
      if (d < axis) rows_ *= out_.dims[size_t(d)];
      else len_ *= out_.dims[size_t(d)], norm.push_back(out_.dims[size_t(d)]);
    }
    if (norm != norm_dims_) {
      check(broadcast_dims(scale_.dims(), norm, name_.c_str()) == norm && (bias_.empty() || broadcast_dims(bias_.dims(), norm, name_.c_str()) == norm),
            name_ + ": Scale and B do not broadcast to " + dims_to_string(norm));
      norm_dims_ = norm;
      device_scale_ = device_->upload(broadcast_float_to(scale_, norm));
      device_bias_ = device_->upload(bias_.empty() ? broadcast_float_to(scale_, norm) : broadcast_float_to(bias_, norm));  // unread without B
    }
    return {{out_}, 0};
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_int has_bias = bias_.empty() ? 0 : 1;
    const cl_kernel k = device_->kernel("layer_normalization");
    set_args(k, *in[0], device_scale_, device_bias_, out[0], cl_long(rows_), cl_long(len_), epsilon_, has_bias);
    device_->launch(k, {size_t(rows_) * Q8_PLANE_SUM_LANES}, {Q8_PLANE_SUM_LANES});  // a row a work-group
  }

 private:
  std::shared_ptr<OpenClDevice> device_;
  int64_t view_axis_;
  float epsilon_;
  std::string name_;
  Tensor scale_, bias_, device_scale_, device_bias_;
  Dims norm_dims_;
  int64_t rows_ = 0, len_ = 0;
  TensorDesc out_;
};

}  // namespace

Support supports_LayerNormalization(const NodeView& view, const DeviceCaps& caps) {
  const Node& n = view.node;
  if (view.input_type(0) != DType::Float32) return Support::no("runs LayerNormalization on float32 only");
  if (n.outputs.size() > 1 && std::any_of(n.outputs.begin() + 1, n.outputs.end(), [](const std::string& o) { return !o.empty(); }))
    return Support::no("runs LayerNormalization with its output Y only (Mean and InvStdDev are asked for)");
  const bool has_bias = n.inputs.size() > 2 && !n.inputs[2].empty();
  if (!view.constant(1) || (has_bias && !view.constant(2)))
    return Support::no("runs LayerNormalization with constant Scale and B only");
  if (view.constant(1)->dtype() != DType::Float32 || (has_bias && view.constant(2)->dtype() != DType::Float32))
    return Support::no("runs LayerNormalization with float32 Scale and B only");
  if (!caps.doubles()) return Support::no(kNoDoubles);
  if (!caps.denormals) return Support::no(kNoDenormals);
  if (!caps.exact_divide) return Support::no(kNoExactDivide);
  return Support::yes();
}

std::unique_ptr<PreparedNode> create_LayerNormalization(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClLayerNormalization>(std::move(device), view);
}

}  // namespace q8
