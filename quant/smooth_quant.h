// SmoothQuant (Xiao et al., ICML 2023; docs/quantization.md, "SmoothQuant"): per input channel of
// the Linears that read one activation, factors that move the activation's outliers into the
// weights, exact in FP32. Rewrites the FP32 graph before the Q/DQ pass, and the ranges of the
// activations it divides.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "calib/range_table.h"
#include "engine/ir/graph.h"

namespace q8 {

struct SmoothQuantReport {
  std::vector<std::string> smoothed;                        // "X: 3 MatMul, into LayerNormalization 'ln1'"
  std::vector<std::pair<std::string, std::string>> skipped;  // activation, why
};

// alpha in [0, 1]: s_j = a_j^alpha / w_j^(1 − alpha). The table's channel_amax of each activation
// smoothed is read; its range becomes max_j a_j / s_j (table rewritten in place).
SmoothQuantReport smooth_quant(Graph& graph, RangeTable& table, double alpha);

}  // namespace q8
