// MatMulBias (domain q8.fused, from the inference graph's fusions; engine/passes/transformer_fusions.h):
//   Y = activation(MatMul(A, W) + bias),  W a constant [K, N], bias a constant [N],
//   activation "" (none) or "Relu" (max(x, 0)),
// one GEMM whose epilogue adds the bias and applies the activation as each tile is stored
// (engine/cpu/gemm.h, GemmEpilogue): the bits of MatMul, Add and the activation run as nodes.
#include "engine/cpu/gemm.h"
#include "engine/ops/elementwise.h"

namespace q8 {

namespace {

void relu_in_place(float* v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) v[i] = v[i] > 0.0f ? v[i] : 0.0f;
}

class MatMulBias final : public Op {
 public:
  MatMulBias(const Node& node, const OpContext& ctx) : name_(node.describe()) {
    check(node.inputs.size() == 3 && ctx.input_is_constant(1) && ctx.input_is_constant(2),
          name_ + ": W and bias must be constants");
    const Tensor& w = *ctx.constants[1];
    bias_ = *ctx.constants[2];
    check(w.dtype() == DType::Float32 && w.rank() == 2, name_ + ": W must be a float32 matrix, not " + dims_to_string(w.dims()));
    check(bias_.dtype() == DType::Float32 && bias_.rank() == 1 && bias_.dim(0) == w.dim(1),
          name_ + ": bias " + dims_to_string(bias_.dims()) + " is not a float32 vector of W's " + std::to_string(w.dim(1)) + " columns");
    packed_w_ = shared_packed_gemm_b(false, w.dim(1), w.dim(0), w.data<float>(), w.dim(1));
    const std::string activation = node.attr_string("activation", "");
    check(activation.empty() || activation == "Relu", name_ + ": activation '" + activation + "' is not Relu");
    epilogue_.bias = bias_.data<float>();
    if (activation == "Relu") epilogue_.activation = relu_in_place;
  }

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& a = float_input(in, 0, "MatMulBias", "A");
    const int64_t k = packed_w_->k, n = packed_w_->n;
    check(a.rank() >= 1 && a.dim(a.rank() - 1) == k,
          name_ + ": A " + dims_to_string(a.dims()) + " does not end in W's " + std::to_string(k) + " rows");
    Dims out_dims(a.dims().begin(), a.dims().end() - 1);
    out_dims.push_back(n);
    Tensor y = Tensor::uninitialized(DType::Float32, out_dims);
    if (y.numel() > 0) sgemm_packed(false, y.numel() / n, 1.0f, a.data<float>(), k, *packed_w_, 0.0f, y.data<float>(), n, epilogue_);
    return {std::move(y)};
  }

 private:
  std::string name_;
  Tensor bias_;
  std::shared_ptr<const PackedB> packed_w_;
  GemmEpilogue epilogue_;
};

}  // namespace

std::unique_ptr<Op> create_matmul_bias(const Node& node, const OpContext& ctx) { return std::make_unique<MatMulBias>(node, ctx); }

}  // namespace q8
