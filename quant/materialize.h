// The Q/DQ pass: folds BatchNorm and constants, marks every node by its rule (quant/rules/), and inserts all
// QuantizeLinear/DequantizeLinear nodes in one place (docs/quantization.md).
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "calib/range_table.h"
#include "quant/fold_batch_norm.h"
#include "quant/fold_constants.h"
#include "quant/rules/rule.h"

namespace q8 {

struct QuantizeReport {
  FoldReport fold;
  ConstantFoldReport constants;
  int64_t opset_from = 0, opset_to = 0;
  std::vector<std::string> quantized;                         // nodes with Q/DQ on their inputs
  std::vector<std::pair<std::string, std::string>> fp32;      // nodes left in FP32, with the reason
  std::vector<std::string> warnings;
  size_t activation_qdq = 0, weight_dq = 0;
};

// exclude holds node names and op types to leave in FP32; a name that matches nothing is an error.
Graph quantize_graph(Graph graph, const RangeTable& table, const QuantOptions& options, const std::set<std::string>& exclude,
                     QuantizeReport& report);

// Per-channel scales of weight w along axis for export: max(amax, 2^-24) / 127. A ConvTranspose
// with group g > 1 has M = g·W.shape[1] exact scales; ONNX's axis 1 holds W.shape[1], so the max
// over groups is taken (the caller warns).
std::vector<float> weight_scales(const Tensor& w, std::optional<int64_t> axis, int64_t group);
// q = clamp(round_half_even(w / s[c]), −127, 127) along axis.
Tensor quantize_weight(const Tensor& w, const std::vector<float>& scales, std::optional<int64_t> axis);

}  // namespace q8
