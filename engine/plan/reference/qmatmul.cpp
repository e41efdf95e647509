// QMatMul (domain q8): INT8 MatMul of two activations, as plain loops (docs/quantization.md,
// "Batched MatMul of two activations"): acc = Σ_k a_q[..., m, k] · b_q[..., k, n], batch axes
// broadcast as numpy's matmul; then y = (float)acc · S (attribute `scale`), or, with attribute
// `multiplier` M, y_q = clamp(rne((float)acc · M), lo, hi).
// Inputs: a_q, b_q int8, ranks >= 2. Attributes: scale or multiplier, lo, hi.
#include "engine/ops/broadcast.h"
#include "engine/ops/op.h"
#include "engine/plan/reference/epilogue.h"
#include "engine/plan/reference/qmatmul.h"

namespace q8 {

QMatMulShape QMatMulShape::of(const Dims& a, const Dims& b, const std::string& name) {
  check(a.size() >= 2 && b.size() >= 2, name + ": a " + dims_to_string(a) + " and b " + dims_to_string(b) + " need rank >= 2");
  QMatMulShape s;
  s.m = a[a.size() - 2], s.k = a.back(), s.n = b.back();
  check(b[b.size() - 2] == s.k, name + ": a " + dims_to_string(a) + " and b " + dims_to_string(b) + " do not share K");
  check(s.k <= kQMatMulMaxK, name + ": K = " + std::to_string(s.k) + " can overflow the int32 accumulator (K · 128 · 128 > 2^31 - 1)");
  const Dims a_batch(a.begin(), a.end() - 2), b_batch(b.begin(), b.end() - 2);
  s.batch = broadcast_dims(a_batch, b_batch, "QMatMul");
  s.out = s.batch;
  s.out.push_back(s.m), s.out.push_back(s.n);
  const int64_t batches = numel(s.batch);
  s.a_offset.assign(size_t(batches), 0), s.b_offset.assign(size_t(batches), 0);
  if (batches > 1) {
    const BroadcastPlan plan = plan_broadcast(s.batch, {&a_batch, &b_batch});
    broadcast_loop<2, false>(plan, [&](int64_t o, const std::array<int64_t, 2>& off) {
      s.a_offset[size_t(o)] = off[0] * s.m * s.k;
      s.b_offset[size_t(o)] = off[1] * s.k * s.n;
    });
  }
  return s;
}

namespace {
class QMatMul final : public SizedOp {
 public:
  explicit QMatMul(const Node& node)
      : int8_out_(node.has("multiplier")), factor_(node.attr_float(int8_out_ ? "multiplier" : "scale", 0.0f)),
        bounds_{int32_t(node.attr_int("lo", -128)), int32_t(node.attr_int("hi", 127))}, name_(node.describe()) {
    check(node.has("multiplier") != node.has("scale"), name_ + ": needs one of the attributes scale and multiplier");
    check(std::isfinite(factor_) && factor_ > 0.0f, name_ + ": its scale or multiplier must be positive and finite");
    check(bounds_.lo >= -128 && bounds_.lo <= bounds_.hi && bounds_.hi <= 127, name_ + ": clamp bounds are not inside [-128, 127]");
  }

  std::vector<TensorDesc> output_descs(const std::vector<TensorDesc>& in) const override {
    check(in.size() == 2 && in[0].dtype == DType::Int8 && in[1].dtype == DType::Int8, name_ + ": a and b must be int8");
    return {{int8_out_ ? DType::Int8 : DType::Float32, QMatMulShape::of(in[0].dims, in[1].dims, name_).out}};
  }

  void run_into(const Inputs& in, std::vector<Tensor>& out) const override {
    const QMatMulShape s = QMatMulShape::of(in[0]->dims(), in[1]->dims(), name_);
    const int8_t* pa = in[0]->data<int8_t>();
    const int8_t* pb = in[1]->data<int8_t>();
    Tensor& y = out[0];
    const int64_t plane = s.m * s.n;
    parallel_for(int64_t(s.a_offset.size()) * s.m, 1, [&](int64_t begin, int64_t end) {  // rows are independent
      for (int64_t r = begin; r < end; ++r) {
        const int64_t batch = r / s.m, i = r % s.m;
        const int8_t* a = pa + s.a_offset[size_t(batch)] + i * s.k;
        const int8_t* b = pb + s.b_offset[size_t(batch)];
        for (int64_t j = 0; j < s.n; ++j) {
          int64_t acc = 0;
          for (int64_t t = 0; t < s.k; ++t) acc += int64_t(a[t]) * int64_t(b[t * s.n + j]);
          const int32_t a32 = checked_accumulator(acc, name_);
          const int64_t at = batch * plane + i * s.n + j;
          if (int8_out_) y.data<int8_t>()[at] = requantize(a32, factor_, bounds_);
          else y.data<float>()[at] = float(a32) * factor_;  // one IEEE multiply
        }
      }
    });
  }

 private:
  bool int8_out_;
  float factor_;
  ClampBounds bounds_;
  std::string name_;
};
}  // namespace

std::unique_ptr<Op> create_qmatmul(const Node& node, const OpContext&) { return std::make_unique<QMatMul>(node); }

}  // namespace q8
