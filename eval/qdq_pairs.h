// The activations a QDQ model quantizes: each FP32 tensor x with its QuantizeLinear and the
// DequantizeLinear whose output x̂ its consumers read.
#pragma once

#include <string>
#include <vector>

#include "engine/ir/graph.h"

namespace q8 {

struct ActivationQdq {
  std::string tensor;      // x, the QuantizeLinear's input
  int quantize = -1;       // node indices
  int dequantize = -1;
  std::string dequantized; // x̂, the DequantizeLinear's output
};

// In node order; weights (QuantizeLinear of an initializer, or a DequantizeLinear of int8
// initializers) are not activations and are left out.
std::vector<ActivationQdq> activation_qdq_pairs(const Graph& qdq);

// The QDQ graph with the given activations' Q/DQ removed: their consumers read x instead of x̂.
Graph bypass_activation_qdq(const Graph& qdq, const std::vector<ActivationQdq>& bypassed);

}  // namespace q8
