// Quantization rules: one per op, each only declaring what its node's tensors need. One place
// (quant/materialize.cpp) rewrites the graph. rules/rules.inc lists them.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/ir/graph_index.h"
#include "engine/ops/value_types.h"
#include "engine/ir/weight_axis.h"
#include "calib/range_table.h"

namespace q8 {

enum class AddMode { Both, TensorRT };  // docs/quantization.md, "Add"

struct QuantOptions {
  bool per_tensor_weights = false;   // one scale per weight instead of per output channel
  bool fp32_weights = false;         // FP32 weights behind Q→DQ instead of int8 initializers
  AddMode add_mode = AddMode::Both;
  bool quantize_bmm = false;         // also MatMul/Gemm of two activations (attention's Q·Kᵀ, P·V)
  bool quantize_heads = false;       // also the output heads that stay FP32 where cheap (quant/output_heads.h)
  std::set<std::string> quantize_ops;  // op types without a rule whose float activation inputs are quantized (--quantize-op)
  std::set<std::string> pinned;      // tensors whose own range wins over a scale carrier's (overrides)
};

// What one input of a node needs.
struct InputNeed {
  size_t input = 0;
  bool weight = false;                // a constant weight (else an activation, per tensor)
  std::optional<int64_t> axis;        // weights: the per-output-channel axis (none: per tensor)
  int64_t group = 1;                  // ConvTranspose: groups along axis 1
};

// Why a MatMul or Gemm of two activations stays FP32 unless --quantize-bmm.
inline constexpr const char* kBmmReason = "both inputs are activations (attention-style; --quantize-bmm quantizes them)";
// Why a MatMul or Gemm whose operand is known without the data but not a constant stays FP32.
inline constexpr const char* kShapeB = "its B is computed from shapes at run time, not a constant weight";
inline constexpr const char* kKnownA = "its A is known without the data (computed from constants and shapes)";

struct NodeMark {
  std::vector<InputNeed> inputs;  // inputs to quantize
  bool scale_carrier = false;     // output keeps input 0's scale (Relu, MaxPool, Reshape, …)
  std::string fp32_reason;        // when nothing is quantized: why ("" = the op has no rule)
};

struct MarkContext {
  const GraphIndex& index;
  const ValueTypes& types;
  const QuantOptions& options;
  const std::set<std::string>& data_independent;  // engine/ops/traits.h's data_independent_values
  const RangeTable* table = nullptr;  // the ranges, where known (how many values each tensor holds a sample)
  // The need of a constant weight w read by node as input 1: per output channel along
  // per_channel_axis, or per tensor with --per-tensor-weights.
  InputNeed weight_need(const Node& node, const Tensor& w, int64_t group = 1) const {
    return {1, true, options.per_tensor_weights ? std::nullopt : per_channel_axis(node, w.rank()), group};
  }
  // Whether value is known without the data: a constant, or computed from constants and shapes
  // (a mask, position ids, anchors). The rules treat it as a constant.
  bool is_constant(const std::string& value) const { return data_independent.count(value) > 0; }
  // Whether value holds floating-point numbers (engine/ops/value_types.h; unknown counts as float).
  bool is_float(const std::string& value) const;
  // The op type of the node producing value ("" for graph inputs and constants).
  std::string producer_op(const std::string& value) const { return index.producer_op(value); }
};

using QuantRule = NodeMark (*)(const Node& node, const MarkContext& ctx);

// The rule for node: its op's own (rules.inc), else the scale carrier's for an op that commutes
// with quantization, else nullptr (the node stays FP32, for fp32_reason).
QuantRule find_rule(const Node& node);
// Whether the op type has a rule of its own in rules.inc (the coverage test asks).
bool has_own_rule(const std::string& op_type);
// An op type --quantize-op (`what`) may name: one q8 registers, without a rule of its own.
void check_quantize_op(const std::string& op_type, const std::string& what);

}  // namespace q8
