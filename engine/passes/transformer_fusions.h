// The inference graph's fusions of a transformer's decomposed ops (ONNX Runtime's LayerNormFusion,
// GeluFusion and its bias fusions; docs/cpu.md, "Inference graph optimization"). Each returns how
// many it fused. Every value a fusion removes is read by the fused chain alone and is no graph
// output.
#pragma once

#include "engine/ir/graph.h"

namespace q8 {

// The domain of q8's fused float ops (MatMulBias).
inline constexpr const char* kFusedFloatDomain = "q8.fused";

// ReduceMean(x) → Sub(x, ·) = d → Pow(d, 2) | Mul(d, d) → ReduceMean → Add(·, epsilon) → Sqrt →
// Div(d, ·) → Mul(·, gamma) [→ Add(·, beta)], each mean over the last axis only with keepdims,
// gamma and beta constant vectors: one LayerNormalization(x, gamma[, beta], axis = −1, epsilon).
// The fused op sums in double (engine/ops/layer_normalization.cpp), not in the float32 steps of
// the decomposed graph: results move by a few ulp, as ONNX Runtime's do.
int fuse_layer_normalization(Graph& graph);

// x · ½ · (1 + erf(x / √2)) in the orders exporters write it (Div(x, √2) or Mul(x, 1/√2) → Erf →
// Add(·, 1), then Mul(x, ·) → Mul(·, ½), Mul(·, ½) → Mul(x, ·), or Mul(Mul(x, ½), ·)): one
// Gelu(x) (q8_gelu, within 3 ulp of the formula; the decomposed graph's own roundings differ).
int fuse_gelu(Graph& graph);

// MatMul(A, W) → Add(·, bias) [→ Relu], W a constant float32 matrix [K, N] and bias a constant
// vector [N]: one q8.fused MatMulBias(A, W, bias) whose GEMM adds the bias and applies the
// activation as it stores each tile (engine/cpu/gemm.h, GemmEpilogue): the same bits as the nodes
// it replaces. (MatMulBias also runs activation "Gelu", which this fusion does not write: see
// docs/cpu.md.)
int fuse_matmul_bias(Graph& graph);

}  // namespace q8
