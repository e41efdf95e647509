// QMatMul (domain q8) on the CPU INT8 backend: oneDNN's int8 matmul of two activations for the
// exact sums, one batched primitive where no batch axis broadcasts (a broadcast b: a's batches as
// rows of one product), else one product per batch; then the reference's arithmetic,
// y_q = clamp(rne((float)acc · M), lo, hi) (vectorized, engine/cpu/requantize_row.h) or
// y = (float)acc · S. Every byte is the reference's (docs/cpu.md, "INT8").
#include <array>

#include "engine/cpu/int8_primitive.h"
#include "engine/cpu/parallel.h"
#include "engine/cpu/requantize_row.h"
#include "engine/cpu/threads.h"
#include "engine/plan/cpu_int8/primitive_cache.h"
#include "engine/plan/cpu_int8/scratch.h"
#include "engine/ops/op.h"
#include "engine/plan/reference/qmatmul.h"
#include "engine/plan/requantize.h"

namespace q8 {

namespace {
class CpuInt8QMatMul final : public SizedOp {
 public:
  CpuInt8QMatMul(const Node& node, std::unique_ptr<Op> reference)
      : reference_(std::move(reference)), int8_out_(node.has("multiplier")),
        factor_(node.attr_float(int8_out_ ? "multiplier" : "scale", 0.0f)),
        bounds_{int32_t(node.attr_int("lo", -128)), int32_t(node.attr_int("hi", 127))}, name_(node.describe()) {}

  std::vector<TensorDesc> output_descs(const std::vector<TensorDesc>& in) const override {
    return static_cast<const SizedOp&>(*reference_).output_descs(in);  // checks the attributes too
  }

  void run_into(const Inputs& in, std::vector<Tensor>& out) const override {
    const QMatMulShape s = QMatMulShape::of(in[0]->dims(), in[1]->dims(), name_);
    const int64_t batches = int64_t(s.a_offset.size());
    bool plain = true, b_shared = true;  // batch i at i·m·k and i·k·n; b the same for every batch
    for (int64_t i = 0; i < batches; ++i) {
      plain = plain && s.a_offset[size_t(i)] == i * s.m * s.k && s.b_offset[size_t(i)] == i * s.k * s.n;
      b_shared = b_shared && s.a_offset[size_t(i)] == i * s.m * s.k && s.b_offset[size_t(i)] == 0;
    }
    // One primitive over every batch, over a's batches as rows, or one per batch.
    const int64_t pb = plain ? batches : 1, pm = b_shared && !plain ? batches * s.m : s.m;
    const Int8BatchedMatmulPrimitive* matmul = primitive(pb, pm, s.k, s.n);
    if (!matmul) return reference_->run_into(in, out);
    const int64_t plane = s.m * s.n, total = batches * plane;
    int32_t* acc = CpuInt8Scratch::sized(cpu_int8_scratch().acc, total);
    const int8_t* pa = in[0]->data<int8_t>();
    const int8_t* pbv = in[1]->data<int8_t>();
    if (plain || b_shared) matmul->run(pa, pbv, acc);
    else
      for (int64_t i = 0; i < batches; ++i) matmul->run(pa + s.a_offset[size_t(i)], pbv + s.b_offset[size_t(i)], acc + i * plane);
    Tensor& y = out[0];
    if (!int8_out_) {
      float* py = y.data<float>();
      parallel_for(total, 4096, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) py[i] = float(acc[i]) * factor_;  // one IEEE multiply
      });
      return;
    }
    const std::vector<int32_t> zeros(size_t(s.n), 0);
    const std::vector<float> factors(size_t(s.n), factor_);
    int8_t* py = y.data<int8_t>();
    parallel_for(batches * s.m, std::max<int64_t>(1, 16384 / s.n), [&](int64_t b, int64_t e) {  // about 16 KB a task
      for (int64_t r = b; r < e; ++r) {
        const int32_t* row = acc + r * s.n;
        int64_t j = requantize_row({row, zeros.data(), factors.data(), nullptr, ResidualSum::Plain, 0.0f, 0.0f, bounds_.lo, bounds_.hi, py + r * s.n}, s.n);
        for (; j < s.n; ++j) py[r * s.n + j] = requantize(row[j], factor_, bounds_);
      }
    });
  }

 private:
  const Int8BatchedMatmulPrimitive* primitive(int64_t batch, int64_t m, int64_t k, int64_t n) const {
    return cache_.get({batch, m, k, n}, [&] { return Int8BatchedMatmulPrimitive::create(batch, m, k, n); });
  }

  std::unique_ptr<Op> reference_;
  bool int8_out_;
  float factor_;
  ClampBounds bounds_;
  std::string name_;
  mutable PrimitiveCache<std::array<int64_t, 4>, Int8BatchedMatmulPrimitive> cache_;
};
}  // namespace

std::unique_ptr<Op> create_cpu_int8_qmatmul(const Node& node, std::unique_ptr<Op> reference) {
  return std::make_unique<CpuInt8QMatMul>(node, std::move(reference));
}

}  // namespace q8
