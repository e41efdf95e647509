// Conv: Y[n, g·Mg + m, o…] = B[g·Mg + m] + Σ_{c<Cg, k…} W[g·Mg + m, c, k…] · X[n, g·Cg + c, o·s − pb + k·d]
// (zero outside X), for group g, Cg = C/group input and Mg = M/group output channels per group.
// Computed as im2col + SGEMM per sample and group; 1×1 stride-1 unpadded kernels skip im2col.
#include <cstring>

#include "engine/cpu/blas.h"
#include "engine/ops/conv_common.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/window.h"

namespace q8 {

namespace {

class Conv final : public Op {
 public:
  Conv(const Node& node) : window_(Window::from_node(node)), group_(node.attr_int("group", 1)), name_(node.describe()) {
    check(group_ >= 1, name_ + ": group must be >= 1");
  }

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = float_input(in, 0, "Conv", "X");
    const Tensor& w = float_input(in, 1, "Conv", "W");
    const Tensor* b = optional_input(in, 2);
    check(x.rank() >= 3 && w.rank() == x.rank(), name_ + ": X of shape " + dims_to_string(x.dims()) +
                                                    " and W of shape " + dims_to_string(w.dims()) + " do not fit");
    const int64_t n = x.dim(0), c = x.dim(1), m = w.dim(0);
    check(c % group_ == 0 && m % group_ == 0, name_ + ": channels " + std::to_string(c) + " → " + std::to_string(m) +
                                                  " are not divisible by group " + std::to_string(group_));
    check(w.dim(1) * group_ == c, name_ + ": weight expects " + std::to_string(w.dim(1) * group_) +
                                      " input channels, X has " + std::to_string(c));
    if (b) check(b->dtype() == DType::Float32 && b->numel() == m, name_ + ": weight has " + std::to_string(m) +
                                                                      " output channels but bias has " + std::to_string(b->numel()));
    const Dims in_spatial(x.dims().begin() + 2, x.dims().end());
    const std::vector<int64_t> kernel(w.dims().begin() + 2, w.dims().end());
    if (!window_.kernel.empty())
      check(window_.kernel == kernel, name_ + ": kernel_shape disagrees with the weight's shape " + dims_to_string(w.dims()));
    const ResolvedWindow r = resolve_window(window_, in_spatial, kernel, name_);

    Dims out_dims{n, m};
    out_dims.insert(out_dims.end(), r.output.begin(), r.output.end());
    Tensor y(DType::Float32, out_dims);
    const ConvGeometry geo(r, in_spatial);
    const int64_t cg = c / group_, mg = m / group_;
    const int64_t kdim = cg * geo.kernel_size;
    const bool direct = geo.is_pointwise();
    const float* px = x.data<float>();
    const float* pw = w.data<float>();
    float* py = y.data<float>();
    run_per_sample(n, [&](int64_t i, std::vector<float>& col) {
      for (int64_t g = 0; g < group_; ++g) {
        const float* xg = px + (i * c + g * cg) * geo.in_size;
        const float* src = xg;
        if (!direct) {
          col.resize(size_t(kdim * geo.out_size));
          geo.im2col(xg, cg, col.data());
          src = col.data();
        }
        sgemm(false, false, mg, geo.out_size, kdim, 1.0f, pw + g * mg * kdim, kdim, src, geo.out_size, 0.0f,
              py + (i * m + g * mg) * geo.out_size, geo.out_size);
      }
      if (b) add_channel_bias(py + i * m * geo.out_size, b->data<float>(), m, geo.out_size);
    });
    return {std::move(y)};
  }

 private:
  Window window_;
  int64_t group_;
  std::string name_;
};

}  // namespace

std::unique_ptr<Op> create_conv(const Node& node, const OpContext&) { return std::make_unique<Conv>(node); }

}  // namespace q8
