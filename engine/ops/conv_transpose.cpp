// ConvTranspose: W is [C, M/group, k…]. For group g, input channel c = g·Cg + ci and output
// channel o = g·Mg + j:  Y[n, o, i·s − pb + k·d] += X[n, c, i] · W[c, j, k…], plus B[o].
// Output size per axis: s·(in − 1) + output_padding + (k − 1)·d + 1 − pb − pe, or output_shape
// with the padding it implies (docs/ops.md). Computed by oneDNN, one sample at a time
// (engine/cpu/conv_primitive.h), or where it has no implementation as SGEMM (Wᵀ·X) + col2im.
// ConvTranspose of domain com.ms.internal.nhwc is the same on channels-last X and Y. There a 2-D
// ConvTranspose whose windows tile the output (stride = kernel, no pads, no dilation, group 1:
// the 2×2 stride-2 upsampling of U-Nets and detectors) is one GEMM and a scatter:
// T[(n, i, j), (ky, kx, m)] = Σ_c X[n, i, j, c] · W[c, m, ky, kx], Y[n, i·sy + ky, j·sx + kx, m] = T + B[m],
// through q8's GEMM, whose rows do not depend on the batch (docs/cpu.md).
#include <cstring>
#include <mutex>
#include <optional>

#include "engine/cpu/conv_primitive.h"
#include "engine/cpu/gemm.h"
#include "engine/cpu/parallel.h"
#include "engine/ops/channels_last.h"
#include "engine/ops/conv_common.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/window.h"

namespace q8 {

namespace {

class ConvTranspose final : public Op {
 public:
  ConvTranspose(const Node& node, const OpContext& ctx, bool channels_last)
      : channels_last_(channels_last),
        constant_weights_(ctx.input_is_constant(1)),
        primitives_(ctx.input_is_constant(1) && (node.inputs.size() < 3 || ctx.input_is_constant(2))),
        window_(Window::from_node(node)),
        group_(node.attr_int("group", 1)),
        output_padding_(node.attr_ints("output_padding")),
        output_shape_(node.attr_ints("output_shape")),
        name_(node.describe()) {
    check(group_ >= 1, name_ + ": group must be >= 1");
  }

  std::vector<Tensor> run(const Inputs& in) const override {
    if (channels_last_) {
      std::optional<Tensor> y = run_channels_last(in);
      if (y) return {std::move(*y)};
      return run_channels_first([this](const Inputs& first) { return run_first(first); }, in, {0});
    }
    return run_first(in);
  }

 private:
  std::vector<Tensor> run_first(const Inputs& in) const {
    const WindowOpInputs args = window_op_inputs(in, "ConvTranspose", name_, window_);
    const Tensor &x = args.x, &w = args.w;
    const Tensor* b = args.bias;
    const int64_t n = x.dim(0), c = x.dim(1);
    check(w.dim(0) == c, name_ + ": weight expects " + std::to_string(w.dim(0)) + " input channels, X has " + std::to_string(c));
    check(c % group_ == 0, name_ + ": " + std::to_string(c) + " input channels are not divisible by group " + std::to_string(group_));
    const int64_t mg = w.dim(1), m = mg * group_, cg = c / group_;
    check_bias(b, m, name_);
    const Dims& in_spatial = args.in_spatial;
    const ResolvedWindow r = resolve(in_spatial, args.kernel);

    Dims out_dims{n, m};
    out_dims.insert(out_dims.end(), r.output.begin(), r.output.end());
    Tensor y = Tensor::uninitialized(DType::Float32, out_dims);
    if (y.numel() == 0) return {std::move(y)};
    const ConvShape shape = primitive_shape(false, c, m, in_spatial, r);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (primitives_.run(shape, x.data<float>(), w.data<float>(), b ? b->data<float>() : nullptr, nullptr, y.data<float>(), n))
        return {std::move(y)};
    }
    std::memset(y.raw(), 0, y.nbytes());  // col2im below accumulates into y
    // The col2im geometry runs the forward window from the output grid onto the input grid.
    ResolvedWindow backward = r;
    backward.output = in_spatial;
    const ConvGeometry geo(backward, r.output);
    const int64_t rows = mg * geo.kernel_size, p = geo.out_size;  // col rows per group; input positions
    const float* px = x.data<float>();
    const float* pw = w.data<float>();
    float* py = y.data<float>();
    const int64_t chunk = samples_per_gemm(n, rows + cg, p);
    for (int64_t first = 0; first < n; first += chunk) {
      const int64_t count = std::min(chunk, n - first), width = count * p;
      for (int64_t g = 0; g < group_; ++g) {
        const float* src = px + (first * c + g * cg) * p;
        if (count > 1) {  // gather X_g of the chunk's samples into [cg, count·p]
          float* xs = scratch(0, size_t(cg * width));
          for_each_sample(count, [&](int64_t s) {
            for (int64_t ci = 0; ci < cg; ++ci)
              copy_bytes(xs + ci * width + s * p, px + ((first + s) * c + g * cg + ci) * p, size_t(p) * sizeof(float));
          });
          src = xs;
        }
        // col[mg·K, count·p] = W_gᵀ[mg·K, cg] · X_g[cg, count·p]
        float* col = scratch(1, size_t(rows * width));
        sgemm(true, false, rows, width, cg, 1.0f, pw + g * cg * rows, rows, src, width, 0.0f, col, width);
        for_each_sample(count, [&](int64_t s) {
          geo.col2im(col + s * p, mg, py + ((first + s) * m + g * mg) * geo.in_size, width);
        });
      }
    }
    if (b) for_each_sample(n, [&](int64_t i) { add_channel_bias(py + i * m * geo.in_size, b->data<float>(), m, geo.in_size); });
    return {std::move(y)};
  }

  // A channels-last transposed convolution through oneDNN; nullopt when oneDNN cannot run it
  // (run() then computes it channels-first, between two transposes).
  std::optional<Tensor> run_channels_last(const Inputs& in) const {
    const Tensor& x = float_input(in, 0, "ConvTranspose", "X");
    const Tensor& w = float_input(in, 1, "ConvTranspose", "W");
    const Tensor* b = optional_input(in, 2);
    check(x.rank() >= 3 && w.rank() == x.rank(),
          name_ + ": X of shape " + dims_to_string(x.dims()) + " and W of shape " + dims_to_string(w.dims()) + " do not fit");
    const int64_t n = x.dim(0), c = x.dims().back();
    if (w.dim(0) != c || c % group_ != 0) return std::nullopt;  // the error comes from there
    const int64_t m = w.dim(1) * group_;
    check_bias(b, m, name_);
    const Dims in_spatial(x.dims().begin() + 1, x.dims().end() - 1);
    const std::vector<int64_t> kernel(w.dims().begin() + 2, w.dims().end());
    if (!window_.kernel.empty() && window_.kernel != kernel) return std::nullopt;
    const ResolvedWindow r = resolve(in_spatial, kernel);
    Dims out_dims{n};
    out_dims.insert(out_dims.end(), r.output.begin(), r.output.end());
    out_dims.push_back(m);
    Tensor y = Tensor::uninitialized(DType::Float32, out_dims);
    if (y.numel() == 0) return y;
    std::lock_guard<std::mutex> lock(mutex_);
    if (tiles_output(r, in_spatial)) {
      gemm_scatter(x, w, b, r, y);
      return y;
    }
    if (!primitives_.run(primitive_shape(true, c, m, in_spatial, r), x.data<float>(), w.data<float>(), b ? b->data<float>() : nullptr,
                         nullptr, y.data<float>(), n))
      return std::nullopt;
    return y;
  }

  // 2-D, group 1, windows that tile the output with nothing cropped or padded.
  bool tiles_output(const ResolvedWindow& r, const Dims& in_spatial) const {
    if (group_ != 1 || in_spatial.size() != 2) return false;
    for (size_t d = 0; d < 2; ++d)
      if (r.strides[d] != r.kernel[d] || r.dilations[d] != 1 || r.pad_begin[d] != 0 || r.output[d] != in_spatial[d] * r.kernel[d])
        return false;
    return true;
  }

  // The GEMM and scatter of a tiling ConvTranspose on channels-last X and Y (header comment).
  void gemm_scatter(const Tensor& x, const Tensor& w, const Tensor* b, const ResolvedWindow& r, Tensor& y) const {
    const int64_t c = x.dims().back(), m = y.dims().back(), kh = r.kernel[0], kw = r.kernel[1], cols = kh * kw * m;
    const int64_t h = x.dim(1), wd = x.dim(2), rows = x.numel() / c;
    if (!constant_weights_ || packed_from_ != w.data<float>()) {  // W [C, M, kh, kw] → [C, (ky, kx, m)]
      packed_.resize(size_t(c * cols));
      const float* pw = w.data<float>();
      for (int64_t ci = 0; ci < c; ++ci)
        for (int64_t mi = 0; mi < m; ++mi)
          for (int64_t k = 0; k < kh * kw; ++k) packed_[size_t(ci * cols + k * m + mi)] = pw[(ci * m + mi) * kh * kw + k];
      packed_from_ = w.data<float>();
    }
    const float* px = x.data<float>();
    const float* bias = b ? b->data<float>() : nullptr;
    float* py = y.data<float>();
    constexpr int64_t kRows = 64;  // a block of T stays in L1/L2 until it is scattered
    parallel_for((rows + kRows - 1) / kRows, 1, [&](int64_t b0, int64_t b1) {
      float* t = scratch(0, size_t(kRows * cols));
      for (int64_t blk = b0; blk < b1; ++blk) {
        const int64_t first = blk * kRows, count = std::min(kRows, rows - first);
        sgemm(false, false, count, cols, c, 1.0f, px + first * c, c, packed_.data(), cols, 0.0f, t, cols);
        for (int64_t row = 0; row < count; ++row) {
          const int64_t at = first + row, j = at % wd, i = (at / wd) % h, sample = at / (wd * h);
          for (int64_t ky = 0; ky < kh; ++ky)
            for (int64_t kx = 0; kx < kw; ++kx) {
              const float* src = t + row * cols + (ky * kw + kx) * m;
              float* dst = py + (((sample * h + i) * kh + ky) * wd * kw + j * kw + kx) * m;
              if (bias) for (int64_t mi = 0; mi < m; ++mi) dst[mi] = src[mi] + bias[mi];
              else std::copy(src, src + m, dst);
            }
        }
      }
    });
  }

  ConvShape primitive_shape(bool channels_last, int64_t c, int64_t m, const Dims& in_spatial, const ResolvedWindow& r) const {
    ConvShape shape{true, channels_last, {}, c, m, group_, in_spatial, r.output, r.kernel, r.strides, r.dilations, r.pad_begin, {}};
    for (size_t d = 0; d < in_spatial.size(); ++d)  // oneDNN has no output_padding: it is a smaller end pad
      shape.pad_end.push_back(r.strides[d] * (in_spatial[d] - 1) + (r.kernel[d] - 1) * r.dilations[d] + 1 - r.pad_begin[d] -
                              r.output[d]);
    return shape;
  }

  ResolvedWindow resolve(const Dims& in, const std::vector<int64_t>& kernel) const {
    return resolve_transpose_window(window_, output_padding_, output_shape_, in, kernel, name_);
  }

  bool channels_last_;
  bool constant_weights_;
  mutable std::mutex mutex_;
  mutable std::vector<float> packed_;  // W for gemm_scatter, packed from packed_from_
  mutable const float* packed_from_ = nullptr;
  mutable ConvPrimitiveCache primitives_;
  Window window_;
  int64_t group_;
  std::vector<int64_t> output_padding_, output_shape_;
  std::string name_;
};

}  // namespace

std::unique_ptr<Op> create_conv_transpose(const Node& node, const OpContext& ctx) {
  return std::make_unique<ConvTranspose>(node, ctx, false);
}

std::unique_ptr<Op> create_nhwc_conv_transpose(const Node& node, const OpContext& ctx) {
  return std::make_unique<ConvTranspose>(node, ctx, true);
}

}  // namespace q8
