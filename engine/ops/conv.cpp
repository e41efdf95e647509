// Conv: Y[n, g·Mg + m, o…] = B[g·Mg + m] + Σ_{c<Cg, k…} W[g·Mg + m, c, k…] · X[n, g·Cg + c, o·s − pb + k·d]
// (zero outside X), for group g, Cg = C/group input and Mg = M/group output channels per group
// (docs/ops.md). Computed by oneDNN, one sample at a time (engine/cpu/conv_primitive.h), or
// where it has no implementation as im2col + q8's SGEMM, several samples sharing one column matrix.
// FusedConv (domain com.microsoft, as ONNX Runtime names it) is the same with an epilogue:
// Y = activation(Conv(X, W, B) + Z), Z optional (input 3), activation "Relu" or "Clip"
// (activation_params [min, max]), computed inside oneDNN's primitive as post-ops.
// Conv and FusedConv of domain com.ms.internal.nhwc are the same on channels-last X, Z and Y
// (engine/ops/channels_last.h); W and B keep their ONNX layout.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>

#include "engine/cpu/conv_primitive.h"
#include "engine/cpu/gemm.h"
#include "engine/ops/channels_last.h"
#include "engine/ops/conv_common.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/window.h"

namespace q8 {

namespace {

class Conv final : public Op {
 public:
  Conv(const Node& node, const OpContext& ctx, bool fused, bool channels_last)
      : window_(Window::from_node(node)), group_(node.attr_int("group", 1)), name_(node.describe()),
        channels_last_(channels_last), primitives_(ctx.input_is_constant(1) && (node.inputs.size() < 3 || ctx.input_is_constant(2))) {
    check(group_ >= 1, name_ + ": group must be >= 1");
    if (!fused) return;
    fused_ = true;
    const std::string activation = node.attr_string("activation", "");
    const std::vector<float> params = node.attr_floats("activation_params");
    if (activation == "Relu") {
      epilogue_.activation = ConvEpilogue::Activation::Relu;
    } else if (activation == "Clip") {
      check(params.size() == 2 && params[0] <= params[1], name_ + ": Clip needs activation_params [min, max] with min <= max");
      epilogue_.activation = ConvEpilogue::Activation::Clip;
      epilogue_.lo = params[0], epilogue_.hi = params[1];
    } else {
      check(activation.empty(), name_ + ": activation '" + activation + "' is not supported (Relu, Clip)");
    }
    Node add;
    add.op_type = "Add";
    add_ = find_op("Add")->create(add, ctx);
  }

  std::vector<Tensor> run(const Inputs& in) const override {
    if (channels_last_) {
      std::optional<Tensor> y = run_channels_last(in);
      if (y) return {std::move(*y)};
      return run_channels_first([this](const Inputs& first) { return run_first(first); }, in, {0, 3});
    }
    return run_first(in);
  }

 private:
  std::vector<Tensor> run_first(const Inputs& in) const {
    const Tensor* z = fused_ ? optional_input(in, 3) : nullptr;
    ConvEpilogue epilogue = epilogue_;
    if (!z) return {convolve(in, epilogue, nullptr)};
    check(z->dtype() == DType::Float32, name_ + ": Z must be float32");
    epilogue.sum = true;
    Tensor y = convolve(in, epilogue, z);
    if (!y.empty()) return {std::move(y)};
    // Z broadcasts: the convolution alone, then the Add and the activation.
    const Tensor plain = convolve(in, {}, nullptr);
    y = add_->run({&plain, z}).at(0);
    apply_activation(y, epilogue_);
    return {std::move(y)};
  }

  // A channels-last convolution through oneDNN; nullopt when oneDNN cannot run it or Z
  // broadcasts (run() then computes it channels-first, between two transposes).
  std::optional<Tensor> run_channels_last(const Inputs& in) const {
    const Tensor& x = float_input(in, 0, "Conv", "X");
    const Tensor& w = float_input(in, 1, "Conv", "W");
    const Tensor* b = optional_input(in, 2);
    const Tensor* z = fused_ ? optional_input(in, 3) : nullptr;
    check(x.rank() >= 3 && w.rank() == x.rank(),
          name_ + ": X of shape " + dims_to_string(x.dims()) + " and W of shape " + dims_to_string(w.dims()) + " do not fit");
    const int64_t n = x.dim(0), c = x.dims().back(), m = w.dim(0);
    if (c % group_ != 0 || m % group_ != 0 || w.dim(1) * group_ != c) return std::nullopt;  // the error comes from there
    check_bias(b, m, name_);
    const Dims in_spatial(x.dims().begin() + 1, x.dims().end() - 1);
    const std::vector<int64_t> kernel(w.dims().begin() + 2, w.dims().end());
    if (!window_.kernel.empty() && window_.kernel != kernel) return std::nullopt;
    const ResolvedWindow r = resolve_window(window_, in_spatial, kernel, name_);
    Dims out_dims{n};
    out_dims.insert(out_dims.end(), r.output.begin(), r.output.end());
    out_dims.push_back(m);
    ConvEpilogue epilogue = epilogue_;
    if (z) {
      check(z->dtype() == DType::Float32, name_ + ": Z must be float32");
      if (z->dims() != out_dims) return std::nullopt;
      epilogue.sum = true;
    }
    Tensor y = Tensor::uninitialized(DType::Float32, out_dims);
    if (y.numel() == 0) return y;
    ConvShape shape{false, true, epilogue, c, m, group_, in_spatial, r.output, r.kernel, r.strides, r.dilations, r.pad_begin, r.pad_end};
    std::lock_guard<std::mutex> lock(mutex_);
    if (!primitives_.run(shape, x.data<float>(), w.data<float>(), b ? b->data<float>() : nullptr, z ? z->data<float>() : nullptr,
                         y.data<float>(), n))
      return std::nullopt;
    return y;
  }

  // The convolution with its epilogue; an empty tensor when the epilogue sums a Z whose shape
  // is not the output's.
  Tensor convolve(const Inputs& in, const ConvEpilogue& epilogue, const Tensor* z) const {
    const WindowOpInputs args = window_op_inputs(in, "Conv", name_, window_);
    const Tensor &x = args.x, &w = args.w;
    const Tensor* b = args.bias;
    const int64_t n = x.dim(0), c = x.dim(1), m = w.dim(0);
    check(c % group_ == 0 && m % group_ == 0, name_ + ": channels " + std::to_string(c) + " → " + std::to_string(m) +
                                                  " are not divisible by group " + std::to_string(group_));
    check(w.dim(1) * group_ == c, name_ + ": weight expects " + std::to_string(w.dim(1) * group_) +
                                      " input channels, X has " + std::to_string(c));
    check_bias(b, m, name_);
    const Dims& in_spatial = args.in_spatial;
    const ResolvedWindow r = resolve_window(window_, in_spatial, args.kernel, name_);

    Dims out_dims{n, m};
    out_dims.insert(out_dims.end(), r.output.begin(), r.output.end());
    if (epilogue.sum && z->dims() != out_dims) return Tensor();
    Tensor y = Tensor::uninitialized(DType::Float32, out_dims);  // both paths below write every element
    if (y.numel() == 0) return y;
    const ConvShape shape{false, false, epilogue, c, m, group_, in_spatial, r.output, r.kernel, r.strides, r.dilations, r.pad_begin, r.pad_end};
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (primitives_.run(shape, x.data<float>(), w.data<float>(), b ? b->data<float>() : nullptr, z ? z->data<float>() : nullptr,
                          y.data<float>(), n))
        return y;
    }
    const ConvGeometry geo(r, in_spatial);
    const int64_t cg = c / group_, mg = m / group_, kdim = cg * geo.kernel_size, p = geo.out_size;
    const float* px = x.data<float>();
    const float* pw = w.data<float>();
    float* py = y.data<float>();
    const int64_t chunk = samples_per_gemm(n, kdim, p);
    for (int64_t first = 0; first < n; first += chunk) {
      const int64_t count = std::min(chunk, n - first), width = count * p;
      for (int64_t g = 0; g < group_; ++g) {
        const float* src;
        if (count == 1 && geo.is_pointwise()) {
          src = px + (first * c + g * cg) * geo.in_size;  // X itself is the column matrix
        } else {
          float* col = scratch(0, size_t(kdim * width));
          for_each_sample(count, [&](int64_t s) {
            geo.im2col(px + ((first + s) * c + g * cg) * geo.in_size, cg, col + s * p, width);
          });
          src = col;
        }
        if (count == 1) {
          sgemm(false, false, mg, p, kdim, 1.0f, pw + g * mg * kdim, kdim, src, p, 0.0f, py + (first * m + g * mg) * p, p);
          continue;
        }
        float* out = scratch(1, size_t(mg * width));
        sgemm(false, false, mg, width, kdim, 1.0f, pw + g * mg * kdim, kdim, src, width, 0.0f, out, width);
        for_each_sample(count, [&](int64_t s) {  // [mg, count, p] → y[first + s, g·mg + j, p]
          for (int64_t j = 0; j < mg; ++j)
            copy_bytes(py + ((first + s) * m + g * mg + j) * p, out + j * width + s * p, size_t(p) * sizeof(float));
        });
      }
    }
    if (b) for_each_sample(n, [&](int64_t i) { add_channel_bias(py + i * m * p, b->data<float>(), m, p); });
    if (epilogue.sum) {
      const float* pz = z->data<float>();
      for (int64_t i = 0; i < y.numel(); ++i) py[i] += pz[i];
    }
    apply_activation(y, epilogue);
    return y;
  }

  static void apply_activation(Tensor& y, const ConvEpilogue& e) {
    if (e.activation == ConvEpilogue::Activation::None) return;
    float* p = y.data<float>();
    const bool relu = e.activation == ConvEpilogue::Activation::Relu;
    for (int64_t i = 0; i < y.numel(); ++i) p[i] = relu ? std::max(p[i], 0.0f) : std::min(std::max(p[i], e.lo), e.hi);
  }

  Window window_;
  int64_t group_;
  std::string name_;
  bool channels_last_;
  bool fused_ = false;
  ConvEpilogue epilogue_;  // FusedConv's activation (its sum is decided per run)
  std::unique_ptr<Op> add_;
  mutable std::mutex mutex_;
  mutable ConvPrimitiveCache primitives_;
};

}  // namespace

std::unique_ptr<Op> create_conv(const Node& node, const OpContext& ctx) { return std::make_unique<Conv>(node, ctx, false, false); }
std::unique_ptr<Op> create_fused_conv(const Node& node, const OpContext& ctx) { return std::make_unique<Conv>(node, ctx, true, false); }
std::unique_ptr<Op> create_nhwc_conv(const Node& node, const OpContext& ctx) { return std::make_unique<Conv>(node, ctx, false, true); }
std::unique_ptr<Op> create_nhwc_fused_conv(const Node& node, const OpContext& ctx) {
  return std::make_unique<Conv>(node, ctx, true, true);
}

}  // namespace q8
