// optimize_for_inference: the rewrites ONNX Runtime makes before it runs a model, for q8 run and
// q8 bench (never for calibration, which observes every tensor of the model as written):
// Constant nodes made initializers and Identity nodes removed, BatchNormalization folded into the
// Conv, ConvTranspose, Gemm or MatMul before it (fold_batch_norm), then Conv [→ Add(·, Z)]
// [→ Relu | Clip] fused into one com.microsoft FusedConv, whose epilogue oneDNN runs inside the
// convolution (engine/ops/conv.cpp); a transformer's decomposed LayerNorm and GELU fused, and
// MatMul → Add(bias) [→ Relu] into q8.fused MatMulBias (engine/passes/transformer_fusions.h)
// ("extended", as ONNX Runtime's level); then at level "all" the layout pass
// (engine/passes/channels_last_layout.h).
#pragma once

#include <optional>
#include <string>

#include "engine/passes/channels_last_layout.h"
#include "engine/passes/fold_batch_norm.h"

namespace q8 {

// ONNX Runtime's names: extended = folds and fusions; all = those and layout.
enum class GraphOptimizationLevel { Extended, All };

struct InferenceOptimization {
  int constants = 0;   // Constant nodes made initializers
  int identities = 0;  // Identity nodes removed
  FoldReport fold;
  int fused_convs = 0;
  int fused_layer_norms = 0;  // decomposed LayerNorms made LayerNormalization
  int fused_gelus = 0;        // decomposed erf GELUs made Gelu
  int fused_matmuls = 0;      // MatMul → Add(bias) [→ activation] made MatMulBias
  bool layout_pass = false;
  LayoutReport layout;
  bool int8_graph = false;  // a graph of the INT8 engine: only the layout pass, for the CPU INT8 backend

  // "graph optimization: [70 Constant to initializers, ][47 Identity removed, ]4 BatchNormalization folded, 3 Conv fused with Add/activation (FusedConv),
  // 25 LayerNormalization fused, 12 Gelu fused, 72 MatMul fused with bias (MatMulBias), 12 nodes channels-last, 2 Transpose"
  std::string summary() const;
};

// The level ONNX Runtime's name ("disable", "extended", "all") names; nullopt for "disable".
// ArgumentError naming `what` for anything else.
std::optional<GraphOptimizationLevel> graph_optimization_level(const std::string& name, const std::string& what);

// A graph holding the INT8 engine's fused ops (a plan, or a lowered QDQ model) is left as it is,
// except that at level "all" with cpu_int8 (it runs on the CPU INT8 backend, device "cpu") the
// layout pass makes its chains of 2-D QConvs channels-last (docs/cpu.md, "Channels-last INT8 chains").
InferenceOptimization optimize_for_inference(Graph& graph, GraphOptimizationLevel level = GraphOptimizationLevel::All, bool cpu_int8 = false);

}  // namespace q8
