// QConv on OpenCL, three variants chosen at create by select_conv (engine/opencl/select.h) and the
// graph's channels-last chains (engine/opencl/channels_last.h): the portable kernel (qconv.cl,
// strips of Q8_CONV_STRIP outputs a work-item; grouped and depthwise convolutions); the tensor
// cores (im2col.cl's rows, a channels-last input's own positions, or windows read straight from a
// channels-last input by qconv_implicit_mma, then qgemm_mma.cl); and depthwise convolutions whose
// input or output is channels-last (qconv.cl's qconv_depthwise_nhwc, Q8_DEPTHWISE_CHUNK channels
// of a position a work-item).
#include <limits>

#include "engine/opencl/channels_last.h"
#include "engine/opencl/ops/weighted.h"

namespace q8 {

namespace {

// Which of a conv's input, output and residual a device keeps channels-last: worked out for the
// whole graph once (the executor's memo), read here by node.
struct ChannelsLastSides {
  bool in = false, out = false, residual = false;
};

ChannelsLastSides channels_last_sides(const NodeView& view, const DeviceCaps& caps, const std::string& device_name) {
  ChannelsLastSides sides;
  if (!view.index) return sides;
  const auto compute = [&] { return channels_last_outputs(*view.index, caps); };
  const std::vector<bool> kept = view.memo ? view.memo->get<std::vector<bool>>("channels-last " + device_name, compute) : compute();
  const auto kept_by = [&](const std::string& value) {
    const int producer = view.index->producer(value);
    return producer >= 0 && kept[size_t(producer)];
  };
  const Node& n = view.node;
  sides.out = kept_by(n.outputs[0]), sides.in = kept_by(n.inputs[0]), sides.residual = n.has_input(4) && kept_by(n.inputs[4]);
  return sides;
}

// What the conv variants share: the window, resolved into a geometry table per input shape.
class ClQConvBase : public ClWeighted {
 public:
  ClQConvBase(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : ClWeighted(std::move(device), view), window_(Window::from_node(view.node)), w_dims_(view.constant(1)->dims()) {}

 protected:
  void prepare(const std::vector<TensorDesc>& inputs) override {
    in_spatial_ = Dims(inputs[0].dims.begin() + 2, inputs[0].dims.end());
    resolved_ = resolve_window(window_, in_spatial_, std::vector<int64_t>(w_dims_.begin() + 2, w_dims_.end()), name_);
    geometry_ = device_->upload(window_geometry(resolved_, in_spatial_));
    prepare_variant(inputs);
  }
  virtual void prepare_variant(const std::vector<TensorDesc>&) {}

  Window window_;
  Dims w_dims_, in_spatial_;
  ResolvedWindow resolved_;
  Tensor geometry_;
};

// qconv.cl: strips of Q8_CONV_STRIP outputs along the last axis.
class ClQConv final : public ClQConvBase {
 public:
  ClQConv(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : ClQConvBase(std::move(device), view), group_(int(view.node.attr_int("group", 1))), w_(device_->upload(*view.constant(1))) {}

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    const Tensor& x = *in[0];
    const Tensor* residual = optional_input(in, 4);
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const int c = int(x.dim(1)), m = int(out_.dims[1]), planes = int(out_.dims[0] * out_.dims[1]);
    const cl_kernel k = device_->kernel("qconv");
    set_args(k, x, w_, c, m, group_, planes, geometry_, mode(residual), out[0], out[0], bias_, bias_, scale_, residual_or_bias(residual),
             r_scale_, y_ratio_, lo_, hi_);
    if (strips_ > 0) device_->launch(k, {size_t(strips_)}, {64});
  }

 private:
  void prepare_variant(const std::vector<TensorDesc>&) override {  // qconv.cl indexes strips and an input plane with int
    const int64_t width = resolved_.output.back(), strips = (width + Q8_CONV_STRIP - 1) / Q8_CONV_STRIP;
    strips_ = numel(out_.dims) / std::max<int64_t>(width, 1) * strips;
    check(strips_ < std::numeric_limits<int32_t>::max() - 64 && numel(in_spatial_) < std::numeric_limits<int32_t>::max(),
          name_ + ": too large for the OpenCL QConv kernel (2^31 strips of outputs, or an input plane of 2^31 values)");
  }

  int group_;
  Tensor w_;
  int64_t strips_ = 0;
};

// qconv.cl's qconv_depthwise_nhwc: Q8_DEPTHWISE_CHUNK channels of one position a work-item.
class ClQConvDepthwiseNhwc final : public ClQConvBase {
 public:
  ClQConvDepthwiseNhwc(std::shared_ptr<OpenClDevice> device, const NodeView& view, ChannelsLastSides sides)
      : ClQConvBase(std::move(device), view), sides_(sides) {
    const Tensor& w = *view.constant(1);  // read as [taps, C]
    w_ = device_->upload(transposed(w.reshaped({w.dim(0), w.numel() / w.dim(0)})));
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    const Tensor& x = *in[0];
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const int c = int(x.dim(1)), in_nhwc = sides_.in, out_nhwc = sides_.out, count = int(chunks_);
    const cl_kernel k = device_->kernel("qconv_depthwise_nhwc");
    set_args(k, x, w_, c, in_nhwc, out_nhwc, count, geometry_, mode(nullptr), out[0], out[0], bias_, bias_, scale_, r_scale_, lo_, hi_);
    if (count > 0) device_->launch(k, {size_t(count)}, {64});
  }

 private:
  void prepare_variant(const std::vector<TensorDesc>&) override {
    chunks_ = numel(out_.dims) / Q8_DEPTHWISE_CHUNK;
    check(chunks_ < std::numeric_limits<int32_t>::max() - 64, name_ + ": too large for the OpenCL depthwise kernel (2^31 chunks)");
  }

  ChannelsLastSides sides_;
  Tensor w_;
  int64_t chunks_ = 0;
};

// The tensor cores: y [N · P, M] = rows [N · P, K] · wᵀ, the rows im2col.cl's (a channels-first
// input), a channels-last input's own positions (a 1 × 1 window at stride 1 without pads), or read
// straight from a channels-last input into qgemm_mma's ring (qconv_implicit_mma).
class ClQConvMma final : public ClQConvBase {
 public:
  ClQConvMma(std::shared_ptr<OpenClDevice> device, const NodeView& view, ChannelsLastSides sides)
      : ClQConvBase(std::move(device), view), sides_(sides) {
    // A channels-last input's columns are tap-major (qconv_implicit_mma), and so are the weights;
    // rows padded with zeros to whole 16-byte chunks (im2col.cl).
    const Tensor& w = *view.constant(1);
    w_ = device_->upload(padded_rows(sides_.in ? taps_major(w) : w, 16));
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    const Tensor& x = *in[0];
    const Tensor* residual = optional_input(in, 4);
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const int c = int(x.dim(1)), m = int(out_.dims[1]), k_dim = int(w_.dim(1));
    const int64_t samples = std::max<int64_t>(out_.dims[0], 1), positions = numel(out_.dims) / samples / std::max<int64_t>(m, 1);
    const int rows = int(samples * positions), spatial = sides_.out ? 0 : int(positions);
    const int residual_spatial = sides_.residual ? 0 : int(positions);
    const Tensor& r = residual_or_bias(residual);
    if (implicit_) {  // the windows read straight from x into the ring (qgemm_mma.cl)
      launch_mma("qconv_implicit_mma", rows, k_dim, m, x, w_, rows, k_dim, m, spatial, mode(residual), out[0], out[0], bias_, bias_, scale_, r,
                 residual_spatial, r_scale_, y_ratio_, lo_, hi_, geometry_, c);
      return;
    }
    if (!sides_.in && !direct_) {
      const cl_kernel im2col = device_->kernel("im2col_int8");
      set_args(im2col, x, cols_, c, rows, k_dim, geometry_);
      device_->launch(im2col, {size_t((rows + 63) / 64 * 256), size_t((k_dim + 63) / 64)}, {256, 1});  // 64 × 64 tiles (im2col.cl)
    }
    launch_mma("qgemm_mma", rows, k_dim, m, direct_ ? x : cols_, w_, rows, k_dim, m, spatial, mode(residual), out[0], out[0], bias_, bias_,
               scale_, r, residual_spatial, r_scale_, y_ratio_, lo_, hi_);
  }

 private:
  void prepare_variant(const std::vector<TensorDesc>& inputs) override {  // im2col's rows: [N · P, C · taps], kept while the shape holds
    const ResolvedWindow& r = resolved_;
    int64_t positions = 1;
    bool identity = true;  // a 1 × 1 window at stride 1 without pads: x's positions are the rows
    for (size_t i = 0; i < r.output.size(); ++i) {
      positions *= r.output[i];
      identity = identity && r.kernel[i] == 1 && r.strides[i] == 1 && r.pad_begin[i] == 0 && r.output[i] == in_spatial_[i];
    }
    // An NCHW input of one position ([N, C, 1, 1], a squeeze-excitation conv's) is channels-last
    // too: its rows are x itself where C fills whole 16-byte chunks.
    const bool one_position = numel(in_spatial_) == 1 && inputs[0].dims[1] == w_.dim(1);
    direct_ = identity && (sides_.in || one_position);
    implicit_ = sides_.in && !direct_;  // channels_last.h keeps one or two spatial axes only
    const Dims cols = {inputs[0].dims[0] * positions, w_.dim(1)};
    if (!sides_.in && !direct_ && cols_.dims() != cols) cols_ = device_->allocate(DType::Int8, cols);
  }

  ChannelsLastSides sides_;
  Tensor w_, cols_;
  bool direct_ = false;    // x read as the rows themselves
  bool implicit_ = false;  // the rows read from x by qconv_implicit_mma
};

}  // namespace

Support supports_QConv(const NodeView& view, const DeviceCaps& caps) {
  if (Support s = int8_support(view); !s.ok) return s;
  if (std::string why = epilogue_refusal(view.node, caps); !why.empty()) return Support::no(why);
  if (view.node.attr_int("channels_last", 0) != 0) return Support::no(kNoChannelsLastQConv);
  const int64_t rank = view.constant(1)->rank();
  if (rank < 3 || rank > 5) return Support::no("the OpenCL QConv takes 1 to 3 spatial axes");
  return Support::yes();
}

std::unique_ptr<PreparedNode> create_QConv(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  const Tensor& w = *view.constant(1);
  const std::string variant = select_conv(w.dim(1), w.numel() / std::max<int64_t>(w.dim(0) * w.dim(1), 1), view.node.attr_int("group", 1),
                                          device->caps());
  const bool depthwise = variant == "qconv" && view.index && channels_last_depthwise(view.node, *view.index);
  const ChannelsLastSides sides = variant == "qconv_mma" || depthwise ? channels_last_sides(view, device->caps(), device->memory_name())
                                                                      : ChannelsLastSides{};
  if (variant == "qconv_mma") return std::make_unique<ClQConvMma>(std::move(device), view, sides);
  if (depthwise && (sides.in || sides.out)) return std::make_unique<ClQConvDepthwiseNhwc>(std::move(device), view, sides);
  return std::make_unique<ClQConv>(std::move(device), view);
}

}  // namespace q8
