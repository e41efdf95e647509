// Gemm and MatMul on float32 through CLBlast's SGEMM on the device's queue: Y = alpha · A' · B'
// + beta · C. MatMul with a 2-D B takes A's leading axes as rows; with B of higher rank (attention's
// Q·Kᵀ and P·V, both computed) one SGEMM per matrix of the output's batch: CLBlast's strided
// batched SGEMM when both operands have the output's batch axes, else one SGEMM per matrix at the
// offsets numpy broadcasting gives. The one OpenCL op whose bits may differ from the host's: SGEMM
// sums in its own order. Its error bound is the dot product's (docs/opencl.md).
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
    check(gemm_ || (a.size() >= 2 && b.size() >= 2), name_ + ": the OpenCL MatMul takes A and B of rank >= 2, got " +
                                                       dims_to_string(a) + " and " + dims_to_string(b));
    k_ = gemm_ ? (trans_a_ ? a[0] : a[1]) : a.back();
    n_ = out_.dims.back();
    m_ = n_ ? numel(out_.dims) / n_ : 0;
    lda_ = a.back(), ldb_ = b.back();
    batches_.clear();
    if (!gemm_ && b.size() > 2) plan_batches(a, b);
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
    // Without C, SGEMM's beta is 0 and it writes every element of Y without reading it (CLBlast
    // multiplies by alpha alone then), so Y needs zeros only where there are no products.
    if (!c_full_.empty()) device_->copy(c_full_, out[0]);
    else if (k_ == 0) device_->zero(out[0]);
    if (m_ == 0 || n_ == 0) return;
    const Tensor& b = b_.empty() ? *in[1] : b_;
    cl_command_queue queue = device_->queue();
    const auto t = [](bool yes) { return yes ? clblast::Transpose::kYes : clblast::Transpose::kNo; };
    if (!batches_.empty()) return run_batches(*in[0], b, out[0], queue);
    const clblast::StatusCode s = clblast::Gemm<float>(
        clblast::Layout::kRowMajor, t(trans_a_), t(trans_b_), size_t(m_), size_t(n_), size_t(k_), alpha_, buffer_of(*in[0]), 0,
        size_t(lda_), buffer_of(b), 0, size_t(ldb_), c_full_.empty() ? 0.0f : beta_, buffer_of(out[0]), 0, size_t(n_), &queue,
        device_->library_event("clblast_sgemm"));
    check_status(s);
  }

 private:
  // One matrix of a batched MatMul: the offsets (in floats) of its A and B.
  struct Batch {
    size_t a, b;
  };

  // A [..., M, K] × B [..., K, N]: the output's matrices and where each reads its operands.
  void plan_batches(const Dims& a, const Dims& b) {
    const int64_t m = a[a.size() - 2], out_rank = int64_t(out_.dims.size());
    const Dims batch(out_.dims.begin(), out_.dims.end() - 2);
    const int64_t count = numel(batch);
    m_ = m;
    strided_ = Dims(a.begin(), a.end() - 2) == batch && Dims(b.begin(), b.end() - 2) == batch;
    // Each operand's stride along each batch axis of the output (0 where it broadcasts).
    const auto strides = [&](const Dims& d) {
      std::vector<int64_t> st(batch.size(), 0);
      int64_t step = d[d.size() - 2] * d.back();
      for (int64_t i = int64_t(d.size()) - 3, o = out_rank - 3; i >= 0 && o >= 0; --i, --o) {
        if (d[size_t(i)] != 1) st[size_t(o)] = step;
        step *= d[size_t(i)];
      }
      return st;
    };
    const std::vector<int64_t> sa = strides(a), sb = strides(b);
    for (int64_t i = 0; i < count; ++i) {
      int64_t rest = i, oa = 0, ob = 0;
      for (int64_t d = int64_t(batch.size()) - 1; d >= 0; --d) {
        const int64_t at = rest % batch[size_t(d)];
        rest /= batch[size_t(d)];
        oa += at * sa[size_t(d)], ob += at * sb[size_t(d)];
      }
      batches_.push_back({size_t(oa), size_t(ob)});
    }
  }

  void run_batches(const Tensor& a, const Tensor& b, Tensor& y, cl_command_queue queue) {
    const size_t m = size_t(m_), n = size_t(n_), k = size_t(k_), mn = m * n;
    if (strided_) {
      check_status(clblast::GemmStridedBatched<float>(clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kNo, m, n, k,
                                                      1.0f, buffer_of(a), 0, k, m * k, buffer_of(b), 0, n, k * n, 0.0f, buffer_of(y), 0, n,
                                                      mn, batches_.size(), &queue, device_->library_event("clblast_sgemm_batched")));
      return;
    }
    for (size_t i = 0; i < batches_.size(); ++i)
      check_status(clblast::Gemm<float>(clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kNo, m, n, k, 1.0f,
                                        buffer_of(a), batches_[i].a, k, buffer_of(b), batches_[i].b, n, 0.0f, buffer_of(y), i * mn, n,
                                        &queue, device_->library_event("clblast_sgemm")));
  }

  void check_status(clblast::StatusCode s) const {
    check(s == clblast::StatusCode::kSuccess, name_ + ": CLBlast's SGEMM failed on " + device_->caps().name + ": " +
                                                  (int(s) > -1000 ? cl_status_name(cl_int(s)) : "CLBlast status " + std::to_string(int(s))));
  }

  std::shared_ptr<OpenClDevice> device_;
  bool gemm_;
  std::unique_ptr<Op> op_;
  std::string name_;
  float alpha_ = 1.0f, beta_ = 0.0f;
  bool trans_a_ = false, trans_b_ = false;
  Tensor b_, c_, c_full_;
  TensorDesc out_;
  int64_t m_ = 0, n_ = 0, k_ = 0, lda_ = 0, ldb_ = 0;
  std::vector<Batch> batches_;  // a MatMul with B of rank > 2: one entry per output matrix
  bool strided_ = false;
};

Support sgemm_support(const NodeView& view) {
  const Node& n = view.node;
  if (view.input_type(0) != DType::Float32 || view.input_type(1) != DType::Float32) return Support::no("runs " + n.op_type + " on float32 only");
  if (n.op_type == "Gemm" && view.has_input(2) && !view.constant(2)) return Support::no("C is not constant");
  if (n.op_type == "MatMul") {  // ranks >= 2: a vector operand stays on the CPU
    for (size_t i = 0; i < 2; ++i) {
      const Tensor* c = view.constant(i);
      const auto shape = i < view.input_shapes.size() ? view.input_shapes[i] : std::nullopt;
      const std::optional<size_t> rank = c ? std::optional(c->rank()) : shape ? std::optional(shape->size()) : std::nullopt;
      if (rank && *rank < 2) return Support::no(std::string("runs MatMul on operands of rank >= 2 only (") + (i ? "B" : "A") + " is a vector)");
    }
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
