// Per-output-channel max |w| of the weights of Conv, ConvTranspose, Gemm and MatMul, read from
// the initializers along each op's axis (docs/calibration.md, DESIGN.md decision 5).
#pragma once

#include <map>
#include <string>

#include "calib/range_table.h"
#include "engine/ir/graph.h"

namespace q8 {

// Weight ranges of every node whose weight is an initializer (or a Constant node's value).
std::map<std::string, WeightRange> weight_ranges(const Graph& graph);

// The per-output-channel amax of a ConvTranspose weight W[C, M/g, k…] with `group` groups:
// M = g · W.shape[1] values, channel o = gi · (M/g) + j the max over the input channels of
// group gi at index j of axis 1.
std::vector<double> conv_transpose_channel_amax(const Tensor& w, int64_t group);
// max |t| along every index of axis.
std::vector<double> channel_amax(const Tensor& t, int64_t axis);

}  // namespace q8
