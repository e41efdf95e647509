// QGemm on OpenCL, three variants chosen by select_gemm (engine/opencl/select.h) at create: the
// portable kernel (qgemm.cl: w as given, transposed or not), dp4a on NVIDIA (qgemm_dp4a.cl) and the
// tensor cores on NVIDIA sm_80 and later (qgemm_mma.cl), both reading w packed once as [N, K].
// x is [rows, K] (a 3-D or 4-D activation's leading axes are rows); y is [rows, N].
#include "engine/opencl/ops/weighted.h"

namespace q8 {

namespace {

// What the variants share: the GEMM's sizes for a run.
class ClQGemmBase : public ClWeighted {
 public:
  using ClWeighted::ClWeighted;

 protected:
  struct Sizes {
    int rows, k, n;
  };
  Sizes sizes(const Tensor& x) const {
    const int k = int(x.dim(x.rank() - 1)), n = int(out_.dims.back());
    return {int(numel(out_.dims) / std::max(n, 1)), k, n};
  }
};

// qgemm.cl: one work-item per output.
class ClQGemm final : public ClQGemmBase {
 public:
  ClQGemm(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : ClQGemmBase(std::move(device), view), trans_b_(int(view.node.attr_int("transB", 0))), w_(device_->upload(*view.constant(1))) {}

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    const Tensor* residual = optional_input(in, 4);
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const Sizes s = sizes(*in[0]);
    const cl_kernel k = device_->kernel("qgemm");
    set_args(k, *in[0], w_, s.rows, s.k, s.n, trans_b_, mode(residual), out[0], out[0], bias_, bias_, scale_, residual_or_bias(residual),
             r_scale_, y_ratio_, lo_, hi_);
    device_->launch(k, {size_t(s.n), size_t(s.rows)});
  }

 private:
  int trans_b_;
  Tensor w_;
};

// w packed as [N, K] (K contiguous): as given with transB, else transposed once.
Tensor packed_nk(const NodeView& view) {
  const Tensor& w = *view.constant(1);
  return view.node.attr_int("transB", 0) ? w : transposed(w);
}

// qgemm_dp4a.cl: four products at a time.
class ClQGemmDp4a final : public ClQGemmBase {
 public:
  ClQGemmDp4a(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : ClQGemmBase(std::move(device), view), w_(device_->upload(packed_nk(view))) {}

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    const Tensor* residual = optional_input(in, 4);
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const Sizes s = sizes(*in[0]);
    const cl_kernel k = device_->kernel("qgemm_dp4a");
    set_args(k, *in[0], w_, s.rows, s.k, s.n, mode(residual), out[0], out[0], bias_, bias_, scale_, residual_or_bias(residual), r_scale_,
             y_ratio_, lo_, hi_);
    device_->launch(k, {size_t(s.n), size_t(s.rows)});
  }

 private:
  Tensor w_;
};

// qgemm_mma.cl: tiles of y on the tensor cores.
class ClQGemmMma final : public ClQGemmBase {
 public:
  ClQGemmMma(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : ClQGemmBase(std::move(device), view), w_(device_->upload(packed_nk(view))) {}

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    const Tensor* residual = optional_input(in, 4);
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const Sizes s = sizes(*in[0]);
    launch_mma("qgemm_mma", s.rows, s.k, s.n, *in[0], w_, s.rows, s.k, s.n, 0, mode(residual), out[0], out[0], bias_, bias_, scale_,
               residual_or_bias(residual), 0, r_scale_, y_ratio_, lo_, hi_);
  }

 private:
  Tensor w_;
};

}  // namespace

Support supports_QGemm(const NodeView& view, const DeviceCaps& caps) {
  if (Support s = int8_support(view); !s.ok) return s;
  if (std::string why = epilogue_refusal(view.node, caps); !why.empty()) return Support::no(why);
  return Support::yes();
}

std::unique_ptr<PreparedNode> create_QGemm(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  const Tensor& w = *view.constant(1);
  const bool trans_b = view.node.attr_int("transB", 0) != 0;
  const std::string variant = select_gemm(trans_b ? w.dim(1) : w.dim(0), trans_b ? w.dim(0) : w.dim(1), device->caps());
  if (variant == "qgemm_mma") return std::make_unique<ClQGemmMma>(std::move(device), view);
  if (variant == "qgemm_dp4a") return std::make_unique<ClQGemmDp4a>(std::move(device), view);
  return std::make_unique<ClQGemm>(std::move(device), view);
}

}  // namespace q8
