// The OpenCL INT8 backend: the q8 domain's fused ops and the float and data-movement ops plans keep,
// as OpenCL kernels (kernels/*.cl), bit for bit the integer reference's and the CPU's results
// (docs/opencl.md). Tensors it reads and writes live in the device's memory; the executor copies
// values in and out where placement changes.
#pragma once

#include <memory>

#include "engine/exec/backend.h"
#include "engine/opencl/device.h"

namespace q8 {

// The backend of one device (engine/runtime/devices.h makes one per device it opens).
std::unique_ptr<Backend> make_opencl_backend(std::shared_ptr<OpenClDevice> device);

}  // namespace q8
