// QConvTranspose on OpenCL (qconv_transpose.cl): one work-item per output, gathering the input
// positions whose taps reach it; W is [C, M/g, k…] and the scales exact per output channel.
#include "engine/opencl/ops/weighted.h"

namespace q8 {

namespace {

class ClQConvTranspose final : public ClWeighted {
 public:
  ClQConvTranspose(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : ClWeighted(std::move(device), view), window_(Window::from_node(view.node)), output_padding_(view.node.attr_ints("output_padding")),
        output_shape_(view.node.attr_ints("output_shape")), w_dims_(view.constant(1)->dims()), group_(int(view.node.attr_int("group", 1))),
        w_(device_->upload(*view.constant(1))) {}

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    const Tensor& x = *in[0];
    const Tensor* residual = optional_input(in, 4);
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const int c = int(x.dim(1)), m = int(out_.dims[1]);
    const cl_kernel k = device_->kernel("qconv_transpose");
    set_args(k, x, w_, c, m, group_, geometry_, mode(residual), out[0], out[0], bias_, bias_, scale_, residual_or_bias(residual), r_scale_,
             y_ratio_, lo_, hi_);
    const int64_t planes = out_.dims[0] * out_.dims[1];
    device_->launch(k, {size_t(numel(out_.dims) / std::max<int64_t>(planes, 1)), size_t(planes)});
  }

 private:
  void prepare(const std::vector<TensorDesc>& inputs) override {
    const Dims in_spatial(inputs[0].dims.begin() + 2, inputs[0].dims.end());
    const std::vector<int64_t> taps(w_dims_.begin() + 2, w_dims_.end());
    geometry_ = device_->upload(window_geometry(resolve_transpose_window(window_, output_padding_, output_shape_, in_spatial, taps, name_),
                                                in_spatial));
  }

  Window window_;
  std::vector<int64_t> output_padding_, output_shape_;
  Dims w_dims_;
  int group_;
  Tensor w_, geometry_;
};

}  // namespace

Support supports_QConvTranspose(const NodeView& view, const DeviceCaps& caps) {
  if (Support s = int8_support(view); !s.ok) return s;
  if (std::string why = epilogue_refusal(view.node, caps); !why.empty()) return Support::no(why);
  if (view.node.attr_int("channels_last", 0) != 0) return Support::no(kNoChannelsLastQConv);
  const int64_t rank = view.constant(1)->rank();
  if (rank < 3 || rank > 5) return Support::no("the OpenCL QConvTranspose takes 1 to 3 spatial axes");
  return Support::yes();
}

std::unique_ptr<PreparedNode> create_QConvTranspose(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClQConvTranspose>(std::move(device), view);
}

}  // namespace q8
