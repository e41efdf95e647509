// Gemm and MatMul on float32 through CLBlast's SGEMM on the device's queue: Y = alpha · A' · B'
// + beta · C (MatMul: A's leading axes as rows, a 2-D B). The one OpenCL op whose bits may differ
// from the host's: SGEMM sums in its own order. Its error bound is the dot product's (docs/opencl.md).
#include <mutex>
#include <set>

#include "engine/ops/broadcast.h"
#include "engine/opencl/clblast_tuning.h"
#include "engine/opencl/ops/ops.h"

#include <clblast.h>  // after q8's OpenCL headers, which fix the OpenCL version

namespace q8 {

namespace {

// q8's Xgemm parameters, set once per device before its first SGEMM, where q8 has an entry.
void tune_once(OpenClDevice& device) {
  static std::mutex mutex;
  static std::set<cl_device_id> done;
  std::lock_guard<std::mutex> lock(mutex);
  if (!done.insert(device.device()).second) return;
  if (const XgemmParams p = tuned_xgemm(device.caps().name); !p.empty()) override_xgemm(device.device(), p);
}

class ClSgemm final : public PreparedNode {
 public:
  ClSgemm(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : device_(std::move(device)), gemm_(view.node.op_type == "Gemm"), op_(find_op(view.node.op_type)->create(view.node, view.op_context())),
        name_(view.node.describe()) {
    const Node& n = view.node;
    if (gemm_) {
      alpha_ = n.attr_float("alpha", 1.0f), beta_ = n.attr_float("beta", 1.0f);
      trans_a_ = n.attr_int("transA", 0) != 0, trans_b_ = n.attr_int("transB", 0) != 0;
      if (const Tensor* c = view.has_input(2) ? view.constant(2) : nullptr; c && beta_ != 0.0f) c_ = *c;
    }
    if (const Tensor* b = view.constant(1)) b_ = device_->upload(*b);
    tune_once(*device_);
  }

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    // The CPU op on zero inputs of these shapes: its checks and its output dims, written once.
    std::vector<Tensor> probes;
    for (const TensorDesc& d : in) probes.emplace_back(d.dtype, d.dims);
    Inputs args;
    for (const Tensor& t : probes) args.push_back(&t);
    out_ = {DType::Float32, op_->run(args).at(0).dims()};
    const Dims& a = in[0].dims;
    const Dims& b = in[1].dims;
    check(gemm_ || (a.size() >= 2 && b.size() == 2), name_ + ": the OpenCL MatMul takes A of rank >= 2 and a 2-D B, got " +
                                                       dims_to_string(a) + " and " + dims_to_string(b));
    k_ = gemm_ ? (trans_a_ ? a[0] : a[1]) : a.back();
    n_ = out_.dims.back();
    m_ = n_ ? numel(out_.dims) / n_ : 0;
    lda_ = a.back(), ldb_ = b.back();
    c_full_ = Tensor();
    if (!c_.empty()) {  // C broadcast to [M, N] once per shape, copied into Y before each SGEMM
      Tensor full(DType::Float32, out_.dims);
      const BroadcastPlan plan = plan_broadcast(full.dims(), {&c_.dims()});
      const float* pc = c_.data<float>();
      float* pf = full.data<float>();
      if (full.numel() > 0) broadcast_loop<1>(plan, [&](int64_t o, const std::array<int64_t, 1>& off) { pf[o] = pc[off[0]]; });
      c_full_ = device_->upload(full);
    }
    return {{out_}, 0};
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    out[0] = device_->allocate(out_.dtype, out_.dims);
    if (!c_full_.empty()) device_->copy(c_full_, out[0]);
    else device_->zero(out[0]);
    if (m_ == 0 || n_ == 0) return;
    const Tensor& b = b_.empty() ? *in[1] : b_;
    cl_command_queue queue = device_->queue();
    const auto t = [](bool yes) { return yes ? clblast::Transpose::kYes : clblast::Transpose::kNo; };
    const clblast::StatusCode s = clblast::Gemm<float>(
        clblast::Layout::kRowMajor, t(trans_a_), t(trans_b_), size_t(m_), size_t(n_), size_t(k_), alpha_, buffer_of(*in[0]), 0,
        size_t(lda_), buffer_of(b), 0, size_t(ldb_), c_full_.empty() ? 0.0f : beta_, buffer_of(out[0]), 0, size_t(n_), &queue,
        device_->library_event("clblast_sgemm"));
    check(s == clblast::StatusCode::kSuccess, name_ + ": CLBlast's SGEMM failed on " + device_->caps().name + ": " +
                                                  (int(s) > -1000 ? cl_status_name(cl_int(s)) : "CLBlast status " + std::to_string(int(s))));
  }

 private:
  std::shared_ptr<OpenClDevice> device_;
  bool gemm_;
  std::unique_ptr<Op> op_;
  std::string name_;
  float alpha_ = 1.0f, beta_ = 0.0f;
  bool trans_a_ = false, trans_b_ = false;
  Tensor b_, c_, c_full_;
  TensorDesc out_;
  int64_t m_ = 0, n_ = 0, k_ = 0, lda_ = 0, ldb_ = 0;
};

Support sgemm_support(const NodeView& view) {
  const Node& n = view.node;
  if (view.input_type(0) != DType::Float32 || view.input_type(1) != DType::Float32) return Support::no("runs " + n.op_type + " on float32 only");
  if (n.op_type == "Gemm" && view.has_input(2) && !view.constant(2)) return Support::no("C is not constant");
  if (n.op_type == "MatMul") {
    const Tensor* b = view.constant(1);
    if (!b || b->rank() != 2) return Support::no("B is not a constant 2-D tensor");
  }
  return Support::yes();
}

}  // namespace

Support supports_Gemm(const NodeView& view, const DeviceCaps&) { return sgemm_support(view); }
std::unique_ptr<PreparedNode> create_Gemm(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClSgemm>(std::move(device), view);
}

Support supports_MatMul(const NodeView& view, const DeviceCaps&) { return sgemm_support(view); }
std::unique_ptr<PreparedNode> create_MatMul(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClSgemm>(std::move(device), view);
}

}  // namespace q8
