// MatMul: numpy matmul. 1-D A is [1, K] (then dropped), 1-D B is [K, 1] (then dropped); batch
// dimensions broadcast. Each batch is one SGEMM; a constant 2-D B (a layer's weight) is packed at
// create, one copy for every executor over the graph (shared_packed_gemm_b).
#include <algorithm>

#include "engine/cpu/gemm.h"
#include "engine/cpu/parallel.h"
#include "engine/cpu/threads.h"
#include "engine/ops/broadcast.h"
#include "engine/ops/elementwise.h"

namespace q8 {

namespace {

// The fewest rows a band of one batch's GEMM gets when batches are cut to keep the threads busy.
constexpr int64_t kMinBandRows = 16;

class MatMul final : public Op {
 public:
  MatMul(std::string name, const Tensor* constant_b) : name_(std::move(name)) {
    if (constant_b && constant_b->dtype() == DType::Float32 && constant_b->rank() == 2)
      packed_b_ = shared_packed_gemm_b(false, constant_b->dim(1), constant_b->dim(0), constant_b->data<float>(), constant_b->dim(1));
  }

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& a0 = float_input(in, 0, "MatMul", "A");
    const Tensor& b0 = float_input(in, 1, "MatMul", "B");
    check(a0.rank() >= 1 && b0.rank() >= 1, name_ + ": scalar operands are not allowed");
    const bool a_vec = a0.rank() == 1, b_vec = b0.rank() == 1;
    const Tensor a = a_vec ? a0.reshaped({1, a0.dim(0)}) : a0;
    const Tensor b = b_vec ? b0.reshaped({b0.dim(0), 1}) : b0;
    const int64_t m = a.dim(a.rank() - 2), k = a.dim(a.rank() - 1);
    const int64_t kb = b.dim(b.rank() - 2), n = b.dim(b.rank() - 1);
    check(k == kb, name_ + ": A " + dims_to_string(a0.dims()) + " and B " + dims_to_string(b0.dims()) +
                       " have inner dimensions " + std::to_string(k) + " and " + std::to_string(kb));
    const Dims a_batch(a.dims().begin(), a.dims().end() - 2), b_batch(b.dims().begin(), b.dims().end() - 2);
    const Dims batch = broadcast_dims(a_batch, b_batch, "MatMul");
    Dims out_dims = batch;
    if (!a_vec) out_dims.push_back(m);
    if (!b_vec) out_dims.push_back(n);
    Tensor y = Tensor::uninitialized(DType::Float32, out_dims);
    const int64_t batches = numel(batch);
    if (y.numel() == 0) return {std::move(y)};
    // Batch offsets of A and B, by broadcasting their batch dims.
    std::vector<int64_t> a_off(static_cast<size_t>(batches)), b_off(static_cast<size_t>(batches));
    if (batches == 1) {
      a_off[0] = b_off[0] = 0;
    } else {
      const BroadcastPlan plan = plan_broadcast(batch, {&a_batch, &b_batch});
      broadcast_loop<2>(plan, [&](int64_t o, const std::array<int64_t, 2>& off) {
        a_off[size_t(o)] = off[0] * m * k;
        b_off[size_t(o)] = off[1] * k * n;
      });
    }
    const float* pa = a.data<float>();
    const float* pb = b.data<float>();
    float* py = y.data<float>();
    // With B shared by every batch and A contiguous, fold batches into M: one large GEMM.
    if (b_batch.empty() || numel(b_batch) == 1) {
      if (numel(a_batch) == batches) {
        if (packed_b_ && b0.rank() == 2)
          sgemm_packed(false, batches * m, 1.0f, pa, k, *packed_b_, 0.0f, py, n);
        else
          sgemm(false, false, batches * m, n, k, 1.0f, pa, k, pb, n, 0.0f, py, n);
        return {std::move(y)};
      }
    }
    // Batches (attention's heads × samples) split among the threads, each GEMM on one thread; with
    // fewer batches than threads (12 heads of one sample on 16 threads) each batch's rows are cut
    // into as many bands as keep every thread busy, each band its own GEMM on one thread. The same
    // arithmetic per element however the rows are cut (gemm.h).
    const int64_t bands = std::clamp<int64_t>((compute_threads() + batches - 1) / batches, 1, std::max<int64_t>(1, m / kMinBandRows));
    parallel_for(batches * bands, 1, [&](int64_t first, int64_t end) {
      for (int64_t t = first; t < end; ++t) {
        const int64_t i = t / bands, band = t % bands;
        const int64_t r0 = m * band / bands, r1 = m * (band + 1) / bands;
        sgemm(false, false, r1 - r0, n, k, 1.0f, pa + a_off[size_t(i)] + r0 * k, k, pb + b_off[size_t(i)], n, 0.0f,
              py + i * m * n + r0 * n, n);
      }
    });
    return {std::move(y)};
  }

 private:
  std::string name_;
  std::shared_ptr<const PackedB> packed_b_;  // B's panels when B is a constant matrix
};

}  // namespace

std::unique_ptr<Op> create_matmul(const Node& node, const OpContext& ctx) {
  return std::make_unique<MatMul>(node.describe(), ctx.input_is_constant(1) ? ctx.constants[1] : nullptr);
}

}  // namespace q8
