// QGemm (domain q8) on the CPU INT8 backend: oneDNN's int8 matmul to exact int32 sums, then the
// reference's epilogue a row at a time (its int8 case vectorized); or the matmul with its own
// requantization, where that is the reference's (onednn_requantization.h). Every byte is the reference's
// (docs/cpu.md, "INT8").
#include <array>

#include "engine/cpu/int8_primitive.h"
#include "engine/cpu/parallel.h"
#include "engine/cpu/threads.h"
#include "engine/plan/cpu_int8/onednn_requantization.h"
#include "engine/plan/cpu_int8/primitive_cache.h"
#include "engine/plan/cpu_int8/rounded_residual.h"
#include "engine/plan/cpu_int8/scratch.h"
#include "engine/plan/reference/epilogue.h"

namespace q8 {

namespace {
class CpuInt8QGemm final : public SizedOp {
 public:
  CpuInt8QGemm(const Node& node, std::unique_ptr<Op> reference)
      : reference_(std::move(reference)), trans_b_(node.attr_int("transB", 0) != 0), epilogue_(node) {}

  std::vector<TensorDesc> output_descs(const std::vector<TensorDesc>& in) const override {
    return static_cast<const SizedOp&>(*reference_).output_descs(in);
  }

  void run_into(const Inputs& in, std::vector<Tensor>& out) const override {
    const Tensor& x = *in[0];
    const Tensor& w = *in[1];
    Tensor& y = out[0];
    const int64_t k = x.dim(x.rank() - 1), n = y.dim(y.rank() - 1);
    const int64_t rows = k ? x.numel() / k : 0;
    Epilogue epilogue = epilogue_;
    epilogue.bind(in);
    const QGemmKernel* kernel = rows > 0 ? kernel_for(rows, k, n, w.data<int8_t>(), epilogue) : nullptr;
    if (!kernel) {
      reference_->run_into(in, out);
      return;
    }
    const Int8MatmulPrimitive* matmul = kernel->matmul.get();
    if (matmul->requantizes()) {
      int8_t* y8 = y.data<int8_t>();
      matmul->run_requantized(x.data<int8_t>(), y8);
      if (const RoundedResidual* sum = kernel->rounded_residual.get())
        parallel_for(rows * n, 16384, [&](int64_t b, int64_t e) { sum->apply(y8 + b, epilogue.residual() + b, e - b); });
      return;
    }
    const int bytes = epilogue.int8_out() ? 1 : 4;
    int32_t* acc = CpuInt8Scratch::sized(cpu_int8_scratch().acc, rows * n);
    matmul->run(x.data<int8_t>(), acc);
    const int8_t* residual = epilogue.residual();
    std::byte* py = y.raw();
    parallel_for(rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)), [&](int64_t b, int64_t e) {  // about 16 KB a task
      for (int64_t row = b; row < e; ++row)
        epilogue.store_channels(py + row * n * bytes, acc + row * n, residual ? residual + row * n : nullptr, 0, n);
    });
  }

 private:
  // oneDNN's matmul, with its own requantization where that is the reference's (W [K, N], or [N, K]
  // with transB: column j's weights N apart, or a row) and then any rounded residual sum; nullptr
  // where oneDNN has none.
  struct QGemmKernel {
    std::unique_ptr<Int8MatmulPrimitive> matmul;
    std::unique_ptr<RoundedResidual> rounded_residual;
  };
  const QGemmKernel* kernel_for(int64_t rows, int64_t k, int64_t n, const int8_t* w, const Epilogue& bound) const {
    return cache_.get({rows, k, n}, [&]() -> std::unique_ptr<QGemmKernel> {
      const std::optional<Int8Requantization> r =
          trans_b_ ? onednn_requantization(bound, w, n, k, k, 1) : onednn_requantization(bound, w, n, 1, k, n);
      auto kernel = std::make_unique<QGemmKernel>();
      kernel->matmul = Int8MatmulPrimitive::create(rows, k, n, trans_b_, r ? &*r : nullptr);
      if (!kernel->matmul) return nullptr;
      kernel->matmul->set_weights(w);  // constant: int8_node_refusal requires it
      if (r && bound.rounded_residual()) kernel->rounded_residual = std::make_unique<RoundedResidual>(bound);
      return kernel;
    });
  }

  std::unique_ptr<Op> reference_;
  bool trans_b_;
  Epilogue epilogue_;
  mutable PrimitiveCache<std::array<int64_t, 3>, QGemmKernel> cache_;
};
}  // namespace

std::unique_ptr<Op> create_cpu_int8_qgemm(const Node& node, std::unique_ptr<Op> reference) {
  return std::make_unique<CpuInt8QGemm>(node, std::move(reference));
}

}  // namespace q8
