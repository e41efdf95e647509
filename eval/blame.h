// Per-layer blame that isolates: for each activation the QDQ model quantizes, the model with
// only that activation's Q/DQ kept (weights stay as the QDQ model quantizes them) is run on the
// same samples, and its output is compared with FP32's. The weights-only model is the baseline;
// a tensor's blame is how much its own quantization adds (docs/accuracy.md).
#pragma once

#include <string>
#include <vector>

#include "datasets/progress.h"
#include "engine/exec/executor.h"
#include "engine/ir/graph.h"

namespace q8 {

struct TensorBlame {
  std::string tensor;
  double cosine_loss = 0;  // 1 − mean cosine of the first output against FP32
  double disagreement = 0; // fraction of argmax decisions (per sample or per pixel) that differ from FP32
};

struct BlameReport {
  int64_t samples = 0;
  TensorBlame weights_only;          // every activation in FP32
  std::vector<TensorBlame> tensors;  // worst first (by cosine loss)
};

// The quantized activations blame measures (each once), for sizing progress: plus one run for the baseline.
size_t blamed_tensor_count(const Graph& qdq);

BlameReport isolated_blame(const Graph& fp32, const Graph& qdq, const std::vector<TensorMap>& batches, Progress& progress);

}  // namespace q8
