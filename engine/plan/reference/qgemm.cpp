// QGemm (domain q8): INT8 matrix product with the requantization epilogue, as plain loops
// (docs/quantization.md, "Requantization"): acc[r, j] = Σ_k x_q[r, k] · w_q[k, j] (w_q[j, k] with
// transB), then the epilogue (epilogue.h) per output column j. Gemm (transA = 0) and MatMul with a
// constant 2-D B lower to it; x_q may have leading batch dimensions, as MatMul's A.
// Inputs: x_q int8 [..., K], w_q int8 [K, N] or [N, K], bias, scale, residual (epilogue.h).
// Attributes: transB, lo, hi, residual_scale, sum_scale, residual_first.
#include "engine/cpu/parallel.h"
#include "engine/plan/reference/epilogue.h"

namespace q8 {

namespace {
class QGemm final : public SizedOp {
 public:
  explicit QGemm(const Node& node) : trans_b_(node.attr_int("transB", 0) != 0), epilogue_(node), name_(node.describe()) {}

  std::vector<TensorDesc> output_descs(const std::vector<TensorDesc>& in) const override {
    check(in.size() >= 2 && in[0].dtype == DType::Int8 && in[1].dtype == DType::Int8, name_ + ": x and w must be int8");
    const Dims& x = in[0].dims;
    const Dims& w = in[1].dims;
    check(x.size() >= 1 && w.size() == 2, name_ + ": x must have rank >= 1 and w rank 2");
    const int64_t k = x.back(), n = trans_b_ ? w[0] : w[1];
    check((trans_b_ ? w[1] : w[0]) == k, name_ + ": x " + dims_to_string(x) + " and w " + dims_to_string(w) + " do not share K");
    Dims out = x;
    out.back() = n;
    return {{epilogue_.check_inputs(in, n, out, name_), out}};
  }

  void run_into(const Inputs& in, std::vector<Tensor>& out) const override {
    const Tensor& x = *in[0];
    const Tensor& w = *in[1];
    Tensor& y = out[0];
    const int64_t k = x.dim(x.rank() - 1), n = y.dim(y.rank() - 1);
    const int64_t rows = k ? x.numel() / k : y.numel() / std::max<int64_t>(n, 1);
    Epilogue epilogue = epilogue_;
    epilogue.bind(in);
    const int8_t* px = x.data<int8_t>();
    const int8_t* pw = w.data<int8_t>();
    parallel_for(rows, 1, [&](int64_t begin, int64_t end) {  // rows are independent
      for (int64_t r = begin; r < end; ++r)
        for (int64_t j = 0; j < n; ++j) {
          int64_t acc = 0;
          for (int64_t i = 0; i < k; ++i) acc += int64_t(px[r * k + i]) * int64_t(trans_b_ ? pw[j * k + i] : pw[i * n + j]);
          epilogue.store(y, r * n + j, j, acc);
        }
    });
  }

 private:
  bool trans_b_;
  Epilogue epilogue_;
  std::string name_;
};
}  // namespace

std::unique_ptr<Op> create_qgemm(const Node& node, const OpContext&) { return std::make_unique<QGemm>(node); }

}  // namespace q8
