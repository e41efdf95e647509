// ConvTranspose: W is [C, M/group, k…]. For group g, input channel c = g·Cg + ci and output
// channel o = g·Mg + j:  Y[n, o, i·s − pb + k·d] += X[n, c, i] · W[c, j, k…], plus B[o].
// Output size per axis: s·(in − 1) + output_padding + (k − 1)·d + 1 − pb − pe, or output_shape
// with the padding it implies (docs/ops.md). Computed by oneDNN, one sample at a time
// (engine/cpu/conv_primitive.h), or where it has no implementation as SGEMM (Wᵀ·X) + col2im.
#include <cstring>
#include <mutex>

#include "engine/cpu/conv_primitive.h"
#include "engine/cpu/gemm.h"
#include "engine/ops/conv_common.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/window.h"

namespace q8 {

namespace {

class ConvTranspose final : public Op {
 public:
  ConvTranspose(const Node& node, const OpContext& ctx)
      : primitives_(ctx.input_is_constant(1) && (node.inputs.size() < 3 || ctx.input_is_constant(2))),
        window_(Window::from_node(node)),
        group_(node.attr_int("group", 1)),
        output_padding_(node.attr_ints("output_padding")),
        output_shape_(node.attr_ints("output_shape")),
        name_(node.describe()) {
    check(group_ >= 1, name_ + ": group must be >= 1");
  }

  std::vector<Tensor> run(const Inputs& in) const override {
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
    ConvShape shape{true, {}, c, m, group_, in_spatial, r.output, r.kernel, r.strides, r.dilations, r.pad_begin, {}};
    for (size_t d = 0; d < in_spatial.size(); ++d)  // oneDNN has no output_padding: it is a smaller end pad
      shape.pad_end.push_back(r.strides[d] * (in_spatial[d] - 1) + (r.kernel[d] - 1) * r.dilations[d] + 1 - r.pad_begin[d] -
                              r.output[d]);
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

 private:
  ResolvedWindow resolve(const Dims& in, const std::vector<int64_t>& kernel) const {
    return resolve_transpose_window(window_, output_padding_, output_shape_, in, kernel, name_);
  }

  mutable std::mutex mutex_;
  mutable ConvPrimitiveCache primitives_;
  Window window_;
  int64_t group_;
  std::vector<int64_t> output_padding_, output_shape_;
  std::string name_;
};

}  // namespace

std::unique_ptr<Op> create_conv_transpose(const Node& node, const OpContext& ctx) {
  return std::make_unique<ConvTranspose>(node, ctx);
}

}  // namespace q8
