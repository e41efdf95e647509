// The devices of this process, with one owner: each OpenCL device is opened once, on first use, and
// kept for the process's life with the backend that runs nodes on it, so every plan, backend list
// and tuner sees the same device and the same tuning. A device's tuning is decided here: the tuning
// database's entry when it opens, then, where asked, a plan's device section or `q8 tune`'s
// candidate (use_tuning), which takes effect for every later node on that device.
#pragma once

#include <memory>

#include "engine/exec/backend.h"
#if Q8_WITH_OPENCL
#include "engine/opencl/mma_tuning.h"
#endif

namespace q8 {

#if Q8_WITH_OPENCL
// OpenCL device `index` (list_devices order), opened on first use; Error when there is none.
OpenClDevice& opencl_device(int index);
// The backend that runs nodes on it.
const Backend& opencl_backend(int index);
// Gives the device another tuning (a plan's device section, q8 tune's candidate); the program is
// built again where the device tile changes.
void use_tuning(int index, const MmaTuning& tuning);
#endif

}  // namespace q8
