// The ops that only select values (Transpose, Slice, nearest Resize, Pad, Expand, Tile, Split,
// DepthToSpace, SpaceToDepth) on int8 or float32, as one gather per output: y[i] = x[source[i]]
// (kernels/gather.cl). source is what the CPU op gives when run on
// the element indices 0…n−1 of the input's shape, once per shape and parameter values, so the
// selection is the CPU op's own; Pad's constant is −1 there (the CPU Pad run with −1 as its
// value), and the kernel writes the real constant in its place.
#pragma once

#include <memory>

#include "engine/exec/backend.h"
#include "engine/opencl/device.h"

namespace q8 {

// Yes for an int8 or float32 input, else why not. Parameters that are not constants (a Resize's
// sizes from a Shape) are read on the host as the graph runs; a new set of values makes a new
// selection.
Support gather_support(const NodeView& view);

std::unique_ptr<PreparedNode> create_gather(std::shared_ptr<OpenClDevice> device, const NodeView& view);

}  // namespace q8
