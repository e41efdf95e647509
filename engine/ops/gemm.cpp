// Gemm: Y = alpha · A' · B' + beta · C, A' = transA ? Aᵀ : A ([M, K]), B' = transB ? Bᵀ : B
// ([K, N]); C is optional and broadcasts (unidirectionally) to [M, N]. A constant B (a layer's
// weight) is packed at create, one copy for every executor over the graph (shared_packed_gemm_b).
#include "engine/cpu/gemm.h"
#include "engine/ops/broadcast.h"
#include "engine/ops/elementwise.h"

namespace q8 {

namespace {

class Gemm final : public Op {
 public:
  Gemm(const Node& node, const Tensor* constant_b)
      : alpha_(node.attr_float("alpha", 1.0f)), beta_(node.attr_float("beta", 1.0f)),
        trans_a_(node.attr_int("transA", 0) != 0), trans_b_(node.attr_int("transB", 0) != 0), name_(node.describe()) {
    if (constant_b && constant_b->dtype() == DType::Float32 && constant_b->rank() == 2) {
      const Tensor& b = *constant_b;
      packed_b_ = shared_packed_gemm_b(trans_b_, trans_b_ ? b.dim(0) : b.dim(1), trans_b_ ? b.dim(1) : b.dim(0), b.data<float>(), b.dim(1));
    }
  }

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& a = float_input(in, 0, "Gemm", "A");
    const Tensor& b = float_input(in, 1, "Gemm", "B");
    check(a.rank() == 2 && b.rank() == 2, name_ + ": A " + dims_to_string(a.dims()) + " and B " + dims_to_string(b.dims()) +
                                              " must be 2-D");
    const int64_t m = trans_a_ ? a.dim(1) : a.dim(0), k = trans_a_ ? a.dim(0) : a.dim(1);
    const int64_t kb = trans_b_ ? b.dim(1) : b.dim(0), n = trans_b_ ? b.dim(0) : b.dim(1);
    check(k == kb, name_ + ": A' is " + std::to_string(m) + "x" + std::to_string(k) + " but B' is " + std::to_string(kb) +
                       "x" + std::to_string(n));
    Tensor y(DType::Float32, {m, n});
    float beta = 0.0f;
    if (const Tensor* c = optional_input(in, 2); c && beta_ != 0.0f) {
      check(c->dtype() == DType::Float32, name_ + ": C must be float32");
      check(broadcast_dims(c->dims(), y.dims(), "Gemm") == y.dims(),
            name_ + ": C of shape " + dims_to_string(c->dims()) + " does not broadcast to " + dims_to_string(y.dims()));
      const BroadcastPlan plan = plan_broadcast(y.dims(), {&c->dims()});
      const float* pc = c->data<float>();
      float* py = y.data<float>();
      if (y.numel() > 0) broadcast_loop<1>(plan, [&](int64_t o, const std::array<int64_t, 1>& off) { py[o] = pc[off[0]]; });
      beta = beta_;
    }
    if (packed_b_)
      sgemm_packed(trans_a_, m, alpha_, a.data<float>(), a.dim(1), *packed_b_, beta, y.data<float>(), n);
    else
      sgemm(trans_a_, trans_b_, m, n, k, alpha_, a.data<float>(), a.dim(1), b.data<float>(), b.dim(1), beta, y.data<float>(), n);
    return {std::move(y)};
  }

 private:
  float alpha_, beta_;
  bool trans_a_, trans_b_;
  std::string name_;
  std::shared_ptr<const PackedB> packed_b_;  // B's panels when B is a constant matrix
};

}  // namespace

std::unique_ptr<Op> create_gemm(const Node& node, const OpContext& ctx) {
  return std::make_unique<Gemm>(node, ctx.input_is_constant(1) ? ctx.constants[1] : nullptr);
}

}  // namespace q8
