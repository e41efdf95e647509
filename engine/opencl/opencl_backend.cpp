#include "engine/opencl/opencl_backend.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <mutex>

#include "engine/cpu/quantize_int8.h"
#include "engine/ir/clip_bounds.h"
#include "engine/ops/broadcast.h"
#include "engine/ops/concat.h"
#include "engine/ops/pooling.h"
#include "engine/ops/window.h"
#include "engine/opencl/args.h"
#include "engine/opencl/channels_last.h"
#include "engine/opencl/ops/ops.h"
#include "engine/opencl/select.h"
#include "engine/plan/reference/backend.h"

namespace q8 {

namespace {

// The epilogue modes of kernels/requantize.cl.
constexpr int kInt8Out = 0, kInt8OutResidual = 1, kFloatOut = 2;
// Outputs per work-item of qconv.cl (Q8_CONV_STRIP there).
constexpr int64_t kQConvStrip = 8;

// int8 w [M, …] as [M, K] with K = the rest of its dims rounded up to a multiple of `multiple`,
// zeros after each row's values.
Tensor padded_rows(const Tensor& w, int64_t multiple) {
  const int64_t m = w.dim(0), k = m ? w.numel() / m : 0, width = (k + multiple - 1) / multiple * multiple;
  Tensor p(DType::Int8, {m, width});
  for (int64_t i = 0; i < m; ++i) std::copy(w.data<int8_t>() + i * k, w.data<int8_t>() + (i + 1) * k, p.data<int8_t>() + i * width);
  return p;
}

// Conv weights [M, C, taps…] as [M, taps, C]: the columns of a channels-last im2col.
Tensor taps_major(const Tensor& w) {
  const int64_t m = w.dim(0), c = w.dim(1), taps = m && c ? w.numel() / (m * c) : 0;
  Tensor t(DType::Int8, {m, taps * c});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t tap = 0; tap < taps; ++tap) t.data<int8_t>()[(i * taps + tap) * c + ci] = w.data<int8_t>()[(i * c + ci) * taps + tap];
  return t;
}

// A 2-D int8 tensor transposed.
Tensor transposed(const Tensor& w) {
  Tensor t(DType::Int8, {w.dim(1), w.dim(0)});
  for (int64_t i = 0; i < w.dim(0); ++i)
    for (int64_t j = 0; j < w.dim(1); ++j) t.data<int8_t>()[j * w.dim(0) + i] = w.data<int8_t>()[i * w.dim(1) + j];
  return t;
}

// What every OpenCL node shares: its device, and the reference op that gives its output shapes,
// so shapes and their checks are written once.
class ClNode : public PreparedNode {
 public:
  ClNode(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : device_(std::move(device)), shapes_(create_int8_reference_op(view)), name_(view.node.describe()) {}

  Reshaped reshape(const std::vector<TensorDesc>& inputs) override {
    out_ = shapes_->reshape(inputs).value().at(0);
    prepare(inputs);
    return {{out_}, 0};
  }

 protected:
  // Work that depends on the input shapes only (geometry tables), done once per reshape.
  virtual void prepare(const std::vector<TensorDesc>& inputs) = 0;

  std::shared_ptr<OpenClDevice> device_;
  std::unique_ptr<Op> shapes_;
  std::string name_;
  TensorDesc out_;
};

// QGemm, QConv and QConvTranspose: constants uploaded at create, the epilogue's arguments in
// kernel order.
class ClWeighted final : public ClNode {
 public:
  ClWeighted(std::shared_ptr<OpenClDevice> device, const NodeView& view) : ClNode(std::move(device), view) {
    const Node& n = view.node;
    const Tensor& w = *view.constant(1);
    kernel_ = n.op_type == "QConv" ? "qconv" : n.op_type == "QConvTranspose" ? "qconv_transpose" : "qgemm";
    trans_b_ = int(n.attr_int("transB", 0));
    if (kernel_ == "qgemm") {
      const int64_t k = trans_b_ ? w.dim(1) : w.dim(0), cols = trans_b_ ? w.dim(0) : w.dim(1);
      kernel_ = select_gemm(k, cols, device_->caps());
    }
    if (kernel_ == "qconv") kernel_ = select_conv(w.dim(1), w.numel() / std::max<int64_t>(w.dim(0) * w.dim(1), 1), n.attr_int("group", 1), device_->caps());
    // The dp4a and mma variants read w as [N, K]: packed once here; the conv's rows padded with
    // zeros to whole 16-byte chunks (im2col.cl).
    packed_ = kernel_ == "qgemm_dp4a" || kernel_ == "qgemm_mma";
    const bool depthwise = kernel_ == "qconv" && view.index && channels_last_depthwise(n, *view.index);
    if ((kernel_ == "qconv_mma" || depthwise) && view.index) {  // channels-last chains (channels_last.h)
      const std::vector<bool> kept = channels_last_outputs(*view.index, device_->caps());
      const auto kept_by = [&](const std::string& value) {
        const int producer = view.index->producer(value);
        return producer >= 0 && kept[size_t(producer)];
      };
      out_nhwc_ = kept_by(n.outputs[0]), in_nhwc_ = kept_by(n.inputs[0]), res_nhwc_ = n.has_input(4) && kept_by(n.inputs[4]);
    }
    if (depthwise && (in_nhwc_ || out_nhwc_)) kernel_ = "qconv_depthwise_nhwc";
    // A channels-last input's columns are tap-major (qconv_implicit_mma), and so are the weights;
    // the channels-last depthwise kernel reads them as [taps, C].
    if (kernel_ == "qconv_mma") w_ = device_->upload(padded_rows(in_nhwc_ ? taps_major(w) : w, 16));
    else if (kernel_ == "qconv_depthwise_nhwc") w_ = device_->upload(transposed(w.reshaped({w.dim(0), w.numel() / w.dim(0)})));
    else w_ = device_->upload(packed_ && !trans_b_ ? transposed(w) : w);
    bias_ = device_->upload(*view.constant(2));
    scale_ = device_->upload(*view.constant(3));
    float_out_ = view.constant(2)->dtype() == DType::Float32;
    group_ = int(n.attr_int("group", 1));
    r_scale_ = n.attr_float("residual_scale", 0.0f);
    lo_ = int(n.attr_int("lo", -128)), hi_ = int(n.attr_int("hi", 127));
    if (windowed()) window_ = Window::from_node(n);
    output_padding_ = n.attr_ints("output_padding");
    output_shape_ = n.attr_ints("output_shape");
    w_dims_ = view.constant(1)->dims();
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    const Tensor& x = *in[0];
    const Tensor* residual = optional_input(in, 4);
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const int mode = float_out_ ? kFloatOut : residual ? kInt8OutResidual : kInt8Out;
    const Tensor& r = residual ? *residual : bias_;  // never read unless mode says so
    if (kernel_ == "qconv_mma") {  // im2col's rows (or a channels-last x itself), then the tensor-core QGemm
      const int c = int(x.dim(1)), m = int(out_.dims[1]), k_dim = int(w_.dim(1));
      const int64_t samples = std::max<int64_t>(out_.dims[0], 1), positions = numel(out_.dims) / samples / std::max<int64_t>(m, 1);
      const int rows = int(samples * positions), spatial = out_nhwc_ ? 0 : int(positions);
      const int residual_spatial = res_nhwc_ ? 0 : int(positions);
      if (implicit_) {  // the windows read straight from x into the ring (qgemm_mma.cl)
        launch_mma("qconv_implicit_mma", rows, k_dim, m, x, w_, rows, k_dim, m, spatial, mode, out[0], out[0], bias_, bias_, scale_, r, residual_spatial,
                   r_scale_, lo_, hi_, geometry_, c);
        return;
      }
      if (!in_nhwc_) {
        const cl_kernel im2col = device_->kernel("im2col_int8");
        set_args(im2col, x, cols_, c, rows, k_dim, geometry_);
        device_->launch(im2col, {size_t((rows + 63) / 64 * 256), size_t((k_dim + 63) / 64)}, {256, 1});  // 64 × 64 tiles (im2col.cl)
      }
      launch_mma("qgemm_mma", rows, k_dim, m, direct_ ? x : cols_, w_, rows, k_dim, m, spatial, mode, out[0], out[0], bias_, bias_, scale_, r, residual_spatial,
                 r_scale_, lo_, hi_);
      return;
    }
    if (kernel_ == "qconv") {  // strips of kQConvStrip outputs along the last axis (qconv.cl)
      const int c = int(x.dim(1)), m = int(out_.dims[1]), planes = int(out_.dims[0] * out_.dims[1]);
      const cl_kernel k = device_->kernel(kernel_);
      set_args(k, x, w_, c, m, group_, planes, geometry_, mode, out[0], out[0], bias_, bias_, scale_, r, r_scale_, lo_, hi_);
      if (strips_ > 0) device_->launch(k, {size_t(strips_)}, {64});
      return;
    }
    if (kernel_ == "qconv_depthwise_nhwc") {  // 16 channels of one position a work-item (qconv.cl)
      const int c = int(x.dim(1)), in_nhwc = in_nhwc_, out_nhwc = out_nhwc_, count = int(chunks_);
      const cl_kernel k = device_->kernel(kernel_);
      set_args(k, x, w_, c, in_nhwc, out_nhwc, count, geometry_, out[0], bias_, scale_, lo_, hi_);
      if (count > 0) device_->launch(k, {size_t(count)}, {64});
      return;
    }
    if (kernel_ == "qconv_transpose") {
      const int c = int(x.dim(1)), m = int(out_.dims[1]);
      const cl_kernel k = device_->kernel(kernel_);
      set_args(k, x, w_, c, m, group_, geometry_, mode, out[0], out[0], bias_, bias_, scale_, r, r_scale_, lo_, hi_);
      const int64_t planes = out_.dims[0] * out_.dims[1];
      device_->launch(k, {size_t(numel(out_.dims) / std::max<int64_t>(planes, 1)), size_t(planes)});
      return;
    }
    const int k_dim = int(x.dim(x.rank() - 1)), n = int(out_.dims.back());
    const int rows = int(numel(out_.dims) / std::max(n, 1));
    if (kernel_ == "qgemm_mma") {
      launch_mma("qgemm_mma", rows, k_dim, n, x, w_, rows, k_dim, n, 0, mode, out[0], out[0], bias_, bias_, scale_, r, 0, r_scale_, lo_, hi_);
      return;
    }
    const cl_kernel k = device_->kernel(kernel_);
    if (packed_) set_args(k, x, w_, rows, k_dim, n, mode, out[0], out[0], bias_, bias_, scale_, r, r_scale_, lo_, hi_);
    else set_args(k, x, w_, rows, k_dim, n, trans_b_, mode, out[0], out[0], bias_, bias_, scale_, r, r_scale_, lo_, hi_);
    device_->launch(k, {size_t(n), size_t(rows)});
  }

 private:
  // qgemm_mma.cl's `function` with the tile select_mma_tile picks for [rows, k] · [k, cols]:
  // one work-group per tile of y. The arguments are set on the kernel that runs.
  template <typename... Args>
  void launch_mma(const std::string& function, int rows, int k, int cols, const Args&... args) {
    const MmaTile tile = select_mma_tile(rows, k, cols, device_->mma_tuning(), device_->caps());
    const cl_kernel kernel = device_->mma_kernel(tile, function);
    set_args(kernel, args...);
    const size_t groups_n = size_t((cols + tile.cols - 1) / tile.cols), groups_m = size_t((rows + tile.rows - 1) / tile.rows);
    check(groups_m <= size_t(kMaxMmaRowGroups), name_ + ": " + std::to_string(rows) + " rows make " + std::to_string(groups_m) +
                                                   " work-groups of tile " + tile.name() + ", past the device's " +
                                                   std::to_string(kMaxMmaRowGroups) + ": run a smaller batch");
    device_->launch(kernel, {groups_n * size_t(tile.threads()), groups_m}, {size_t(tile.threads()), 1});
  }

  bool windowed() const { return kernel_ == "qconv" || kernel_ == "qconv_mma" || kernel_ == "qconv_transpose" || kernel_ == "qconv_depthwise_nhwc"; }

  void prepare(const std::vector<TensorDesc>& inputs) override {
    if (!windowed()) return;
    // in[3], out[3], kernel[3], strides[3], dilations[3], pads_begin[3], leading axes padded.
    const Dims in_spatial(inputs[0].dims.begin() + 2, inputs[0].dims.end());
    const std::vector<int64_t> taps(w_dims_.begin() + 2, w_dims_.end());
    const ResolvedWindow r = kernel_ != "qconv_transpose" ? resolve_window(window_, in_spatial, taps, name_)
                                                         : resolve_transpose_window(window_, output_padding_, output_shape_, in_spatial, taps, name_);
    const size_t pad = 3 - in_spatial.size();
    std::vector<int32_t> g(18, 0);
    for (size_t a = 0; a < 3; ++a) {
      const bool real = a >= pad;
      const size_t i = a - pad;
      g[a] = real ? int32_t(in_spatial[i]) : 1;
      g[3 + a] = real ? int32_t(r.output[i]) : 1;
      g[6 + a] = real ? int32_t(r.kernel[i]) : 1;
      g[9 + a] = real ? int32_t(r.strides[i]) : 1;
      g[12 + a] = real ? int32_t(r.dilations[i]) : 1;
      g[15 + a] = real ? int32_t(r.pad_begin[i]) : 0;
    }
    geometry_ = device_->upload(Tensor::from_vector<int32_t>({18}, g));
    if (kernel_ == "qconv") {  // qconv.cl indexes strips and an input plane with int
      const int64_t width = g[5], strips = (width + kQConvStrip - 1) / kQConvStrip;
      strips_ = numel(out_.dims) / std::max<int64_t>(width, 1) * strips;
      check(strips_ < std::numeric_limits<int32_t>::max() - 64 && int64_t(g[0]) * g[1] * g[2] < std::numeric_limits<int32_t>::max(),
            name_ + ": too large for the OpenCL QConv kernel (2^31 strips of outputs, or an input plane of 2^31 values)");
    }
    if (kernel_ == "qconv_depthwise_nhwc") {
      chunks_ = numel(out_.dims) / 16;
      check(chunks_ < std::numeric_limits<int32_t>::max() - 64, name_ + ": too large for the OpenCL depthwise kernel (2^31 chunks)");
    }
    if (kernel_ == "qconv_mma") {  // im2col's rows: [N · P, C · taps], kept while the shape holds
      int64_t positions = 1;
      bool identity = true;  // a 1 × 1 window at stride 1 without pads: x's positions are the rows
      for (size_t i = 0; i < r.output.size(); ++i) {
        positions *= r.output[i];
        identity = identity && r.kernel[i] == 1 && r.strides[i] == 1 && r.pad_begin[i] == 0 && r.output[i] == in_spatial[i];
      }
      direct_ = in_nhwc_ && identity;
      implicit_ = in_nhwc_ && !direct_;  // channels_last.h keeps one or two spatial axes only
      const Dims cols = {inputs[0].dims[0] * positions, w_.dim(1)};
      if (!in_nhwc_ && cols_.dims() != cols) cols_ = device_->allocate(DType::Int8, cols);
    }
  }

  std::string kernel_;
  bool float_out_ = false, packed_ = false;
  int trans_b_ = 0, group_ = 1, lo_ = -128, hi_ = 127;
  float r_scale_ = 0.0f;
  Window window_;
  std::vector<int64_t> output_padding_, output_shape_;
  Dims w_dims_;
  Tensor w_, bias_, scale_, geometry_, cols_;
  int64_t strips_ = 0, chunks_ = 0;  // qconv's work-items; qconv_depthwise_nhwc's
  bool in_nhwc_ = false, out_nhwc_ = false, res_nhwc_ = false;  // channels-last input, output, residual
  bool direct_ = false;                                          // x read as the rows themselves
  bool implicit_ = false;                                        // the rows read from x by qconv_implicit_mma
};

// kernels/binary.cl's broadcast layout: output dims, then a's and b's strides, over 6 axes aligned
// to the right (0 along broadcast axes).
Tensor broadcast_layout(const Dims& out, const Dims& a, const Dims& b, const std::string& name) {
  std::vector<int64_t> layout(18, 0);
  check(out.size() <= 6, name + ": OpenCL's Add takes up to 6 axes");
  for (size_t axis = 0; axis < 6; ++axis) layout[axis] = axis + out.size() >= 6 ? out[axis + out.size() - 6] : 1;
  const Dims* operands[2] = {&a, &b};
  for (size_t t = 0; t < 2; ++t) {
    const Dims& d = *operands[t];
    int64_t stride = 1;
    for (size_t k = d.size(); k-- > 0;) {
      layout[6 * (t + 1) + (6 - d.size() + k)] = d[k] == 1 ? 0 : stride;
      stride *= d[k];
    }
  }
  return Tensor::from_vector<int64_t>({18}, layout);
}

class ClAdd final : public ClNode {
 public:
  ClAdd(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : ClNode(std::move(device), view), a_scale_(view.node.attr_float("a_scale", 0.0f)), b_scale_(view.node.attr_float("b_scale", 0.0f)),
        lo_(int(view.node.attr_int("lo", -128))), hi_(int(view.node.attr_int("hi", 127))) {}

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_long count = numel(out_.dims);
    const cl_kernel k = device_->kernel(same_ ? "qadd_same" : "qadd");
    if (same_) set_args(k, *in[0], *in[1], out[0], count, a_scale_, b_scale_, lo_, hi_);
    else set_args(k, *in[0], *in[1], out[0], count, layout_, a_scale_, b_scale_, lo_, hi_);
    device_->launch(k, {size_t(same_ ? (count + 15) / 16 : count)});  // qadd_same: 16 values a work-item
  }

 private:
  void prepare(const std::vector<TensorDesc>& inputs) override {
    layout_ = device_->upload(broadcast_layout(out_.dims, inputs[0].dims, inputs[1].dims, name_));
    same_ = inputs[0].dims == out_.dims && inputs[1].dims == out_.dims;
  }

  bool same_ = false;
  float a_scale_, b_scale_;
  int lo_, hi_;
  Tensor layout_;
};

class ClConcat final : public ClNode {
 public:
  ClConcat(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : ClNode(std::move(device), view), axis_(view.node.attr_int("axis", 0)) {
    const Tensor& tables = *view.constant(view.node.inputs.size() - 1);
    for (int64_t i = 0; i < tables.dim(0); ++i) {
      Tensor row(DType::Int8, {256});
      std::copy(tables.data<int8_t>() + i * 256, tables.data<int8_t>() + (i + 1) * 256, row.data<int8_t>());
      tables_.push_back(device_->upload(row));
    }
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_kernel k = device_->kernel("qconcat_part");
    const int64_t axis = normalize_axis(axis_, int64_t(out_.dims.size()), "QConcat");
    const ConcatRows layout = concat_rows(out_.dims, size_t(axis));
    const cl_long inner = layout.inner;
    cl_long offset = 0;
    for (size_t i = 0; i < tables_.size(); ++i) {
      const cl_long inner_i = in[i]->dim(size_t(axis)) * layout.inner_rest, rows = layout.outer;
      set_args(k, *in[i], tables_[i], out[0], rows, inner_i, inner, offset);
      device_->launch(k, {size_t(rows * inner_i)});
      offset += inner_i;
    }
  }

 private:
  void prepare(const std::vector<TensorDesc>&) override {}

  int64_t axis_;
  std::vector<Tensor> tables_;  // one 256-entry table per input
};

// MaxPool on int8, 2-D windows, no Indices output.
class ClMaxPool final : public PreparedNode {
 public:
  ClMaxPool(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : device_(std::move(device)), window_(Window::from_node(view.node)), name_(view.node.describe()) {}

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    const PoolShape p = resolve_pool(window_, in.at(0).dims, name_);
    check(p.in_spatial.size() == 2, name_ + ": the OpenCL MaxPool takes 2 spatial axes");
    const ResolvedWindow& w = p.window;
    out_ = {DType::Int8, p.out_dims};
    geometry_ = device_->upload(Tensor::from_vector<int32_t>(
        {12}, {int32_t(p.in_spatial[0]), int32_t(p.in_spatial[1]), int32_t(w.output[0]), int32_t(w.output[1]), int32_t(w.kernel[0]),
               int32_t(w.kernel[1]), int32_t(w.strides[0]), int32_t(w.strides[1]), int32_t(w.dilations[0]), int32_t(w.dilations[1]),
               int32_t(w.pad_begin[0]), int32_t(w.pad_begin[1])}));
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

// QuantizeLinear (float32 → int8) and DequantizeLinear (int8 → float32), per tensor: the plan's
// boundaries, so a plan's inputs and outputs cross as float and everything between stays on the
// device.
class ClQuantize final : public PreparedNode {
 public:
  ClQuantize(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : device_(std::move(device)), quantize_(view.node.op_type == "QuantizeLinear"), scale_(view.constant(1)->data<float>()[0]) {
    const Tensor* zp = view.has_input(2) ? view.constant(2) : nullptr;
    zero_point_ = zp ? int(zp->data<int8_t>()[0]) : 0;
  }

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    out_ = {quantize_ ? DType::Int8 : DType::Float32, in.at(0).dims};
    return {{out_}, 0};
  }

  // The quantize at a plan's entry reads the graph's float input on the host and uploads int8.
  bool takes_host_input(size_t slot) const override { return quantize_ && slot == 0; }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    const cl_long count = numel(out_.dims);
    if (quantize_ && !in[0]->on_device()) {  // quantized straight into the device's pinned staging memory
      out[0] = device_->upload_filled(DType::Int8, out_.dims, [&](std::byte* bytes) {
        quantize_int8(in[0]->data<float>(), reinterpret_cast<int8_t*>(bytes), count, scale_, float(zero_point_));
      });
      return;
    }
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_kernel k = device_->kernel(quantize_ ? "quantize_linear" : "dequantize_linear");
    if (quantize_) set_args(k, *in[0], out[0], count, scale_, float(zero_point_));
    else set_args(k, *in[0], out[0], count, scale_, zero_point_);
    device_->launch(k, {size_t(count)});
  }

 private:
  std::shared_ptr<OpenClDevice> device_;
  bool quantize_;
  float scale_;
  int zero_point_ = 0;
  TensorDesc out_;
};

// The float32 activations of kernels/activations.cl; its op codes in the order of the kernel's.
const std::vector<std::string> kActivations = {"Relu", "Clip", "LeakyRelu", "HardSigmoid", "HardSwish", "Sigmoid", "Exp"};

class ClActivation final : public PreparedNode {
 public:
  ClActivation(std::shared_ptr<OpenClDevice> device, const NodeView& view) : device_(std::move(device)) {
    const Node& n = view.node;
    op_ = int(std::find(kActivations.begin(), kActivations.end(), n.op_type) - kActivations.begin());
    if (n.op_type == "Clip") {  // engine/ops/clip.cpp's defaults: ±inf as attributes, the float range as inputs
      const float inf = std::numeric_limits<float>::infinity();
      const std::optional<ClipBounds> bounds = clip_bounds(view);
      a_ = bounds->first.value_or(view.opset < 11 ? -inf : std::numeric_limits<float>::lowest());
      b_ = bounds->second.value_or(view.opset < 11 ? inf : std::numeric_limits<float>::max());
    }
    if (n.op_type == "LeakyRelu") a_ = n.attr_float("alpha", 0.01f);
    if (n.op_type == "HardSigmoid") a_ = n.attr_float("alpha", 0.2f), b_ = n.attr_float("beta", 0.5f);
    if (n.op_type == "HardSwish") a_ = 6.0f;  // the divisor, as an argument (kernels/activations.cl)
  }

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    out_ = {DType::Float32, in.at(0).dims};
    return {{out_}, 0};
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_long count = numel(out_.dims);
    const cl_kernel k = device_->kernel("activation");
    set_args(k, *in[0], out[0], count, op_, a_, b_);
    device_->launch(k, {size_t(count)});
  }

  // Clip's bounds: attributes before opset 11, constant inputs 1 and 2 since; nullopt when an
  // input bound is not a constant float32 scalar.
  static std::optional<ClipBounds> clip_bounds(const NodeView& view) {
    ClipBounds b;
    if (view.opset < 11) {
      if (view.node.has("min")) b.first = view.node.attr_float("min", 0.0f);
      if (view.node.has("max")) b.second = view.node.attr_float("max", 0.0f);
      return b;
    }
    for (size_t i = 1; i <= 2; ++i) {
      if (!view.has_input(i)) continue;
      const Tensor* t = view.constant(i);
      if (!t || t->dtype() != DType::Float32 || t->numel() != 1) return std::nullopt;
      (i == 1 ? b.first : b.second) = t->data<float>()[0];
    }
    return b;
  }

 private:
  std::shared_ptr<OpenClDevice> device_;
  int op_ = 0;
  float a_ = 0.0f, b_ = 0.0f;
  TensorDesc out_;
};

// GlobalAveragePool on float32 (kernels/global_average_pool.cl).
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
    device_->launch(k, {size_t(planes_)});
  }

 private:
  std::shared_ptr<OpenClDevice> device_;
  TensorDesc out_;
  cl_long planes_ = 0, size_ = 0;
};

// kernels/binary.cl's ops, in the order of its op codes.
const std::vector<std::string> kBinaryOps = {"Add", "Sub", "Mul", "Div"};

// Add, Sub, Mul and Div on float32 with broadcasting (kernels/binary.cl); a constant operand is
// uploaded once.
class ClFloatBinary final : public PreparedNode {
 public:
  ClFloatBinary(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : device_(std::move(device)), name_(view.node.describe()), op_type_(view.node.op_type),
        op_(int(std::find(kBinaryOps.begin(), kBinaryOps.end(), op_type_) - kBinaryOps.begin())) {
    for (size_t i = 0; i < 2; ++i)
      if (view.constant(i)) constants_[i] = device_->upload(*view.constant(i));
  }

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    out_ = {DType::Float32, broadcast_dims(in.at(0).dims, in.at(1).dims, op_type_.c_str())};
    layout_ = device_->upload(broadcast_layout(out_.dims, in[0].dims, in[1].dims, name_));
    return {{out_}, 0};
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_long count = numel(out_.dims);
    const cl_kernel k = device_->kernel("binary_float");
    set_args(k, constants_[0].empty() ? *in[0] : constants_[0], constants_[1].empty() ? *in[1] : constants_[1], out[0], count, layout_, op_);
    device_->launch(k, {size_t(count)});
  }

 private:
  std::shared_ptr<OpenClDevice> device_;
  std::string name_, op_type_;
  int op_;
  Tensor constants_[2];
  TensorDesc out_;
  Tensor layout_;
};

bool is_binary_op(const std::string& op) { return std::find(kBinaryOps.begin(), kBinaryOps.end(), op) != kBinaryOps.end(); }

// The float32 ops the device runs (activations, GlobalAveragePool, the binary ops), or why not.
Support float_support(const NodeView& view, const DeviceCaps& caps) {
  const Node& n = view.node;
  if (view.input_type(0) != DType::Float32) return Support::no("runs " + n.op_type + " on float32 only");
  if (!caps.denormals) return Support::no(kNoDenormals);
  const bool divides = n.op_type == "HardSwish" || n.op_type == "Sigmoid" || n.op_type == "Div";
  if (divides && !caps.exact_divide)
    return Support::no(kNoExactDivide);
  if (is_binary_op(n.op_type)) {
    if (view.input_type(1) != DType::Float32) return Support::no("runs " + n.op_type + " on float32 only");
    return Support::yes();
  }
  if (n.op_type == "GlobalAveragePool") {
    if (!caps.doubles()) return Support::no(kNoDoubles);
    return Support::yes();
  }
  if (n.op_type == "Clip" && !ClActivation::clip_bounds(view)) return Support::no("Clip's bounds are not constant float32 scalars");
  return Support::yes();
}

bool is_float_op(const std::string& op) {
  return op == "GlobalAveragePool" || is_binary_op(op) || std::find(kActivations.begin(), kActivations.end(), op) != kActivations.end();
}

// Per-tensor int8 QuantizeLinear or DequantizeLinear with constant parameters, or why not.
Support quantize_support(const NodeView& view, const DeviceCaps& caps) {
  const Node& n = view.node;
  const bool quantize = n.op_type == "QuantizeLinear";
  const Tensor* scale = view.has_input(1) ? view.constant(1) : nullptr;
  const Tensor* zp = view.has_input(2) ? view.constant(2) : nullptr;
  if (!scale || scale->dtype() != DType::Float32 || scale->numel() != 1) return Support::no("a per-tensor constant float32 scale only");
  if (view.has_input(2) && (!zp || zp->dtype() != DType::Int8 || zp->numel() != 1)) return Support::no("an int8 per-tensor zero point only");
  if (quantize && !zp) return Support::no("no zero point: uint8 output");
  if (view.input_type(0) != (quantize ? DType::Float32 : DType::Int8)) return Support::no(quantize ? "x is not float32" : "x is not int8");
  if (quantize && !caps.exact_divide) return Support::no(kNoExactDivide);
  return Support::yes();
}

// Reshape, Flatten, Squeeze, Unsqueeze and Identity: the output is the input's buffer with other
// dims. The CPU op, run once per input shape on a zero tensor, gives those dims.
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

bool is_view_op(const std::string& op) {
  return op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" || op == "Identity";
}

// The ops of the default domain the device runs on int8 (the carriers a plan leaves between fused
// ops; the views on float32 too), or why not.
Support carrier_support(const NodeView& view) {
  const Node& n = view.node;
  if (n.op_type != "MaxPool" && !is_view_op(n.op_type)) return Support::no();
  const bool float_view = is_view_op(n.op_type) && view.input_type(0) == DType::Float32;
  if (view.input_type(0) != DType::Int8 && !float_view) return Support::no("runs " + n.op_type + " on int8" + (is_view_op(n.op_type) ? " and float32" : "") + " only");
  for (size_t i = 1; i < n.inputs.size(); ++i)
    if (view.has_input(i) && !view.constant(i)) return Support::no("input " + std::to_string(i) + " is not constant");
  if (n.op_type == "MaxPool" && n.outputs.size() > 1 && !n.outputs[1].empty()) return Support::no("MaxPool's Indices output");
  if (n.op_type == "MaxPool" && n.attr_ints("kernel_shape").size() != 2) return Support::no("the OpenCL MaxPool takes 2 spatial axes");
  return Support::yes();
}

class OpenClBackend final : public Backend {
 public:
  explicit OpenClBackend(std::shared_ptr<OpenClDevice> device) : device_(std::move(device)), name_("opencl") {}

  std::string_view name() const override { return name_; }
  std::string_view memory() const override { return device_->memory_name(); }

  std::vector<OpKey> op_types() const override {
    std::vector<OpKey> out = {{"", "QuantizeLinear"}, {"", "DequantizeLinear"}, {"", "GlobalAveragePool"}, {"", "MaxPool"}};
    for (const auto& op : kActivations) out.push_back({"", op});
    for (const auto& op : kBinaryOps) out.push_back({"", op});
    for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"}) out.push_back({"", op});
    for (const ClOp& op : cl_ops()) out.push_back({"", std::string(op.op_type)});
    for (const char* op : {"QConv", "QConvTranspose", "QGemm", "QAdd", "QConcat"}) out.push_back({kInt8Domain, op});
    return out;
  }

  std::vector<std::string> missing_capabilities() const override {
    std::vector<std::string> out;
    const DeviceCaps& caps = device_->caps();
    if (!caps.denormals) out.push_back(kNoDenormals);
    if (!caps.exact_divide) out.push_back(kNoExactDivide);
    if (!caps.doubles()) out.push_back(kNoDoubles);
    return out;
  }

  Support supports(const NodeView& view) const override {
    const Node& n = view.node;
    if (n.domain.empty() && (n.op_type == "QuantizeLinear" || n.op_type == "DequantizeLinear")) return quantize_support(view, device_->caps());
    if (n.domain.empty() && is_float_op(n.op_type)) return float_support(view, device_->caps());
    if (const ClOp* op = n.domain.empty() ? find_cl_op(n.op_type) : nullptr) return op->supports(view, device_->caps());
    if (n.domain.empty()) return carrier_support(view);
    if (n.domain != kInt8Domain) return Support::no();
    if (n.op_type != "QConv" && n.op_type != "QConvTranspose" && n.op_type != "QGemm" && n.op_type != "QAdd" && n.op_type != "QConcat")
      return Support::no("no OpenCL kernel for " + n.op_type + " yet");
    if (std::string why = int8_node_refusal(view); !why.empty()) return Support::no(why);
    const bool windowed = n.op_type == "QConv" || n.op_type == "QConvTranspose";
    if (windowed && (view.constant(1)->rank() < 3 || view.constant(1)->rank() > 5))
      return Support::no("the OpenCL " + n.op_type + " takes 1 to 3 spatial axes");
    return Support::yes();
  }

  std::unique_ptr<PreparedNode> create(const NodeView& view) const override {
    if (view.node.op_type == "MaxPool") return std::make_unique<ClMaxPool>(device_, view);
    if (view.node.op_type == "QuantizeLinear" || view.node.op_type == "DequantizeLinear") return std::make_unique<ClQuantize>(device_, view);
    if (view.node.op_type == "GlobalAveragePool") return std::make_unique<ClGlobalAveragePool>(device_);
    if (view.node.domain.empty() && is_binary_op(view.node.op_type)) return std::make_unique<ClFloatBinary>(device_, view);
    if (const ClOp* op = view.node.domain.empty() ? find_cl_op(view.node.op_type) : nullptr) return op->create(device_, view);
    if (is_float_op(view.node.op_type)) return std::make_unique<ClActivation>(device_, view);
    if (is_view_op(view.node.op_type)) return std::make_unique<ClView>(view);
    if (view.node.op_type == "QAdd") return std::make_unique<ClAdd>(device_, view);
    if (view.node.op_type == "QConcat") return std::make_unique<ClConcat>(device_, view);
    return std::make_unique<ClWeighted>(device_, view);
  }

  Tensor upload(const Tensor& host) const override { return device_->upload(host); }
  Tensor download(const Tensor& on_device) const override { return device_->download(on_device); }
  void begin_timing() const override { device_->begin_timing(); }
  std::optional<DeviceTimes> end_timing() const override { return device_->end_timing(); }

 private:
  std::shared_ptr<OpenClDevice> device_;
  std::string name_;
};

}  // namespace

const Backend& opencl_backend(int index) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<OpenClBackend>> backends;
  std::lock_guard<std::mutex> lock(mutex);
  auto& b = backends[index];
  if (!b) b = std::make_unique<OpenClBackend>(OpenClDevice::open(index));
  return *b;
}

}  // namespace q8
