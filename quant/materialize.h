// The Q/DQ pass, a pipeline over one analysis of the graph (docs/quantization.md): 0. BatchNorm and
// constants folded, the opset raised; 1. every node marked by its rule (quant/marks.h); 2. every
// quantized activation's scale (quant/activation_scales.h); 3. every QuantizeLinear and
// DequantizeLinear inserted, in one place (materialize).
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "calib/range_table.h"
#include "engine/passes/fold_batch_norm.h"
#include "engine/passes/fold_constants.h"
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

// Steps 0 and 1 on g: BatchNorm and constants folded, the opset raised, every node marked (one
// mark per node of g as it is afterwards). exclude as in quantize_graph. With the range table,
// cheap output heads stay FP32 (quant/output_heads.h; it tells their cost).
std::vector<NodeMark> prepare_and_mark(Graph& g, const QuantOptions& options, const std::set<std::string>& exclude,
                                       QuantizeReport& report, const RangeTable* table = nullptr);

// exclude holds node names and op types to leave in FP32; a name that matches nothing is an error.
Graph quantize_graph(Graph graph, const RangeTable& table, const QuantOptions& options, const std::set<std::string>& exclude,
                     QuantizeReport& report);

// Step 3: the Q/DQ pairs of the marked activations (at their scales) and the DequantizeLinear of
// the marked weights (per channel as marked), inserted into g, which index describes as marked.
void materialize(Graph& g, const GraphIndex& index, const std::vector<NodeMark>& marks, const std::map<std::string, float>& scales,
                 const QuantOptions& options, QuantizeReport& report);

// Per-channel scales of weight w along axis for export: max(amax, 2^-24) / 127. A ConvTranspose
// with group g > 1 has M = g·W.shape[1] exact scales; ONNX's axis 1 holds W.shape[1], so the max
// over groups is taken (the caller warns).
std::vector<float> weight_scales(const Tensor& w, std::optional<int64_t> axis, int64_t group);
// q = clamp(round_half_even(w / s[c]), −127, 127) along axis.
Tensor quantize_weight(const Tensor& w, const std::vector<float>& scales, std::optional<int64_t> axis);

}  // namespace q8
