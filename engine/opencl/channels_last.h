// Which QConv outputs a device keeps channels-last between tensor-core convolutions
// (docs/opencl.md, "Channels-last chains"): a pure function of the graph and the device's
// capabilities, so a conv and its readers reach the same answer each on its own.
#pragma once

#include <vector>

#include "engine/ir/graph_index.h"
#include "engine/opencl/device.h"

namespace q8 {

// Per node of index's graph: true where the node writes its int8 output as [N · P, M] (NHWC)
// instead of NCHW. The node is a QConv of one or two spatial axes the device runs as qconv_mma,
// or a depthwise conv of int8 output qconv_depthwise_nhwc can run; its output is no graph output;
// and every reader is one of those too, or a depthwise conv of float output (which writes NCHW), reading it as its input x (with C a multiple of 16, so a position's
// channels are whole 16-byte chunks), or a qconv_mma reading it as its residual (read in either
// layout).
std::vector<bool> channels_last_outputs(const GraphIndex& index, const DeviceCaps& caps);

// A depthwise QConv qconv_depthwise_nhwc runs where its input or output is channels-last: two
// spatial axes, group = C = M a multiple of 16, no residual; int8 out (either layout), or float out
// with or without an activation (NCHW, for float readers such as a squeeze-excitation gate).
bool channels_last_depthwise(const Node& n, const GraphIndex& index);

}  // namespace q8
