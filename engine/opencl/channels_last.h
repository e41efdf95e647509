// Which QConv outputs a device keeps channels-last between tensor-core convolutions
// (docs/opencl.md, "Channels-last chains"): a pure function of the graph and the device's
// capabilities, so a conv and its readers reach the same answer each on its own.
#pragma once

#include <vector>

#include "engine/ir/graph_index.h"
#include "engine/opencl/device.h"

namespace q8 {

// Per node of index's graph: true where the node is a QConv the device runs as qconv_mma whose
// int8 output it writes as [N · P, M] (NHWC) instead of NCHW. That holds where the output is no
// graph output and every reader is such a conv too, reading it as its input x (with C a multiple
// of 16, so a position's channels are whole 16-byte chunks) or as its residual (read in either
// layout).
std::vector<bool> channels_last_outputs(const GraphIndex& index, const DeviceCaps& caps);

}  // namespace q8
