// QConv (domain q8) on the CPU INT8 backend: q8's depthwise kernel or oneDNN's int8 convolution
// for the exact sums, then the reference's epilogue (conv_samples.h); or oneDNN's convolution with
// its own requantization, where that is the reference's (onednn_requantization.h). Shapes oneDNN has no kernel for run the reference's
// loops. Every byte is the reference's (docs/cpu.md, "INT8"). With channels_last (the layout
// pass's) x, the residual and y stay [N, H, W, C], the primitive's own layout: no copies.
#include "engine/plan/cpu_int8/conv_samples.h"
#include "engine/plan/cpu_int8/onednn_requantization.h"
#include "engine/plan/reference/window_shape.h"

namespace q8 {

namespace {
class CpuInt8QConv final : public SizedOp {
 public:
  CpuInt8QConv(const Node& node, std::unique_ptr<Op> reference)
      : reference_(std::move(reference)), window_(Window::from_node(node)), group_(node.attr_int("group", 1)),
        channels_last_(node.attr_int("channels_last", 0) != 0), epilogue_(node), name_(node.describe()) {}

  std::vector<TensorDesc> output_descs(const std::vector<TensorDesc>& in) const override {
    return static_cast<const SizedOp&>(*reference_).output_descs(in);
  }

  void run_into(const Inputs& in, std::vector<Tensor>& out) const override {
    const Tensor& x = *in[0];
    const Tensor& w = *in[1];
    const Int8ConvLayout& layout = *layouts_.get(x.dims(), [&] {
      const Dims x_dims = channels_first_input(x.dims(), channels_last_, name_);
      const ResolvedWindow r = resolve_window(window_, spatial_of(x_dims), spatial_of(w.dims()), name_);
      auto l = std::make_unique<Int8ConvLayout>();
      l->shape = {false, x_dims[1], w.dim(0), group_, spatial_of(x_dims), r.output, r.kernel, r.strides, r.dilations, r.pad_begin, r.pad_end};
      Epilogue bound = epilogue_;
      bound.bind(in);
      const int64_t m = w.dim(0), per_channel = m ? w.numel() / m : 0;
      // q8's depthwise kernel, requantizing in its registers where the epilogue allows.
      const std::optional<Int8Requantization> own = requantization_of(bound, m);
      l->depthwise = DepthwiseInt8Conv::create(l->shape, w.data<int8_t>(), own ? &*own : nullptr);
      if (l->depthwise) {
        l->requantized = l->depthwise->requantizes();
        if (l->requantized && bound.rounded_residual()) l->rounded_residual = std::make_unique<RoundedResidual>(bound);
        return l;
      }
      // oneDNN's requantization where it is exact (W [M, C/g, k…]: a channel's weights in a row).
      const std::optional<Int8Requantization> rq = onednn_requantization(bound, w.data<int8_t>(), m, per_channel, per_channel, 1);
      l->bands = conv_bands(cache_, l->shape, w.data<int8_t>(), x_dims[0], rq ? &*rq : nullptr);
      if (l->bands.empty()) l->conv = conv_primitive(cache_, l->shape, w.data<int8_t>(), rq ? &*rq : nullptr);
      l->requantized = rq && (l->conv || !l->bands.empty());
      if (l->requantized && bound.rounded_residual()) l->rounded_residual = std::make_unique<RoundedResidual>(bound);
      return l;
    });
    if (!layout.has_kernel()) return reference_->run_into(in, out);
    Epilogue epilogue = epilogue_;
    epilogue.bind(in);
    run_conv_samples(layout, x, epilogue, out[0], channels_last_);
  }

 private:
  std::unique_ptr<Op> reference_;
  Window window_;
  int64_t group_;
  bool channels_last_;
  Epilogue epilogue_;
  std::string name_;
  mutable Int8ConvCache cache_;
  mutable Int8ConvLayouts layouts_;
};
}  // namespace

std::unique_ptr<Op> create_cpu_int8_qconv(const Node& node, std::unique_ptr<Op> reference) {
  return std::make_unique<CpuInt8QConv>(node, std::move(reference));
}

}  // namespace q8
