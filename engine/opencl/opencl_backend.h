// The OpenCL INT8 backend: the q8 domain's fused ops as OpenCL kernels (kernels/*.cl), bit for
// bit the integer reference's results (docs/opencl.md). Tensors it reads and writes live in the
// device's memory; the executor copies values in and out where placement changes.
#pragma once

#include "engine/exec/backend.h"

namespace q8 {

// The backend for OpenCL device `index` (list_devices order), created once per process; Error
// when there is no such device or its kernels do not build.
const Backend& opencl_backend(int index);

}  // namespace q8
