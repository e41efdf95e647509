// The ops that only select values (Transpose, Slice, nearest Resize) on int8 or float32, as one
// gather: y[i] = x[source[i]] (kernels/gather.cl). source is what the CPU op gives when run on the
// element indices 0…n−1 of the input's shape, once per shape, so the selection is the CPU op's own.
#pragma once

#include <memory>

#include "engine/exec/backend.h"
#include "engine/opencl/device.h"

namespace q8 {

// Yes for an int8 or float32 input with constant parameters, else why not.
Support gather_support(const NodeView& view);

std::unique_ptr<PreparedNode> create_gather(std::shared_ptr<OpenClDevice> device, const NodeView& view);

}  // namespace q8
