// fold_batch_norm: folds BatchNormalization into the Conv, ConvTranspose, Gemm or MatMul (with a
// constant weight) that feeds it, docs/quantization.md. The folded node takes the BN's output name,
// so ranges calibrated for the BN output apply to it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/ir/graph.h"

namespace q8 {

struct FoldReport {
  std::vector<std::string> folded;                        // BN node names folded away
  std::vector<std::pair<std::string, std::string>> kept;  // BN nodes left in FP32, with the reason
};

FoldReport fold_batch_norm(Graph& graph);

}  // namespace q8
