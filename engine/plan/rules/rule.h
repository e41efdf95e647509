// Lowering rules: each matches one pattern of a QDQ graph anchored at a node and describes the
// fused node that replaces it (like ONNX Runtime's QDQ selector/action pairs). Rules only
// describe; engine/plan/lower.cpp rewrites. rules.inc lists them with their anchor ops.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/plan/qdq_graph.h"
#include "engine/plan/requantize.h"

namespace q8 {

struct Fusion {
  std::vector<int> consumed;                  // nodes the fused node replaces (its anchor included)
  Node fused;                                 // placed where the last consumed node was
  std::vector<Node> after;                    // ops that run on its int8 output, then (carriers)
  std::map<std::string, Tensor> initializers;  // new constants the fused node reads
};

// nullopt with `why` set: the anchor stays as it is (FP32 between its Q/DQ), for that reason.
using LoweringRule = std::optional<Fusion> (*)(const QdqGraph& g, int anchor, std::string& why);

struct RuleEntry {
  const char* anchor_op;
  LoweringRule rule;
};

// Relu and Clip nodes (constant bounds) that follow value as its sole readers, folded into
// bounds for output scale s_y once it is known: the chain's nodes and its last value.
struct ActivationChain {
  std::vector<int> nodes;
  std::string output;
  ClampBounds bounds(const QdqGraph& g, float s_y) const;
};
ActivationChain follow_activations(const QdqGraph& g, const std::string& value);

// An activation a weighted op's epilogue takes (docs/quantization.md, "Activations in the
// epilogue"): its nodes, its output, its name as the fused op's `activation` attribute ("Gelu",
// "Swish", "HardSwish", "Sigmoid") and, for Gelu, its `approximate` ("none" or "tanh").
struct EpilogueActivation {
  std::vector<int> nodes;
  std::string output;
  std::string activation;
  std::string approximate = "none";
};
// A GELU that alone reads value: an ONNX Gelu, or the Erf form exporters write (rules/gelu.cpp).
std::optional<EpilogueActivation> follow_gelu(const QdqGraph& g, const std::string& value);
// The activation that alone reads value: a GELU, Mul(x, Sigmoid(x)), HardSwish or Sigmoid
// (rules/epilogue_activation.cpp).
std::optional<EpilogueActivation> follow_epilogue_activation(const QdqGraph& g, const std::string& value);
// The node of op_type in the default domain, with one output, that alone reads value; or -1.
int sole_reader_of(const QdqGraph& g, const std::string& value, const char* op_type);
// Node n (two inputs) reads a and b, in either order.
bool reads_pair(const Node& n, const std::string& a, const std::string& b);

// The QuantizeLinear with per-tensor int8 parameters that is value's sole reader, or -1.
int sole_per_tensor_quantize(const QdqGraph& g, const std::string& value, QuantParams& params);

// Whether op runs on int8 in place of DQ → op → Q: it commutes with quantization
// (engine/ops/traits.h: Q(op(x)) = op(Q(x))), has one output, and its other inputs are constants.
bool carrier_on_int8(const QdqGraph& g, const Node& op, std::string& why);
// The carrier as it runs on int8: its value input (Pad's constant_value, zero) left absent.
Node on_int8(Node carrier);

// The QuantizeLinear (per tensor, int8) that value reaches through sole-reader ops that commute
// with quantization, or -1; `through` gets those ops. Q moves back across them (TensorRT's rule).
int quantize_through_carriers(const QdqGraph& g, const std::string& value, QuantParams& params, std::vector<int>& through);

// Ends fusion f at the QuantizeLinear that `tail` reaches through carriers (quantize_through_carriers):
// the fused node writes int8, the carriers then run on int8 and the last writes the Q's output.
// False, with f unchanged, when no such Q exists.
bool end_at_quantize(const QdqGraph& g, const std::string& tail, Fusion& f, QuantParams& out);

// A fresh, unused name for a constant derived from base ("conv1.bias_q").
std::string derived_name(const QdqGraph& g, const std::string& base);

}  // namespace q8
