// Bias correction (docs/calibration.md, "Bias correction"): the mean shift each quantized Conv,
// ConvTranspose and Gemm puts on its output channels, measured on data against the same layer in
// FP32 reading the same input, and folded into the layer's bias.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "datasets/batch_stream.h"
#include "engine/ir/graph.h"

namespace q8 {

struct BiasShifts {
  std::map<std::string, std::vector<double>> shifts;  // node name → shift per output channel
  int64_t samples = 0;
};

// `probe`: the QDQ model written with FP32 weights behind Q/DQ (QuantOptions::fp32_weights), so
// that each layer's FP32 weight is there to read. Runs the stream through it once.
BiasShifts measure_bias_shifts(const Graph& probe, BatchSource& stream);

// b'_c = b_c + shift_c for every node named in `shifts` (a Gemm's C by shift / beta; a missing bias
// created); returns the largest |shift|.
double apply_bias_shifts(Graph& qdq, const BiasShifts& shifts);

}  // namespace q8
