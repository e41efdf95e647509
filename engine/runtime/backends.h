// Devices by name, as the CLI's --device takes them, and the backends a plan runs on there: for
// "cpu", the CPU INT8 backend, the INT8 reference (what it declines), then the CPU ops; for
// "cpu-reference", the INT8 reference alone, then the CPU ops (the oracle every backend's bytes
// are checked against); for "opencl[:N]", that OpenCL device first.
#pragma once

#include <string>

#include "engine/exec/executor.h"

namespace q8 {

// -1 for "cpu", kCpuReference for "cpu-reference", N for "opencl" (0) or "opencl:N"; Error for
// anything else.
inline constexpr int kCpuReference = -2;
int device_index(const std::string& device);
// Whether a device name is an OpenCL device's (Error for no device's name).
inline bool is_opencl_device(const std::string& device) { return device_index(device) >= 0; }
// Whether the INT8 engine runs on the CPU INT8 backend there ("cpu"): the backend whose QConv
// takes the layout pass's channels_last (optimize_for_inference's cpu_int8).
inline bool runs_cpu_int8(const std::string& device) { return device_index(device) == -1; }
// The backends in order of preference. Error for another device, or for OpenCL in a build
// without it.
BackendList backends_for(const std::string& device = "cpu");
// "cpu", or the OpenCL device's description ("opencl:0: NVIDIA H200 (…); qgemm_mma tiles …").
std::string describe_device(const std::string& device);
// The device section `q8 build --device` writes into a plan: "" for "cpu"; for "opencl[:N]",
// that device's tuning as it runs now (its database entry, else q8's entry, else the default),
// recorded so that the plan runs the same tiles there whatever the database later holds. Error
// for a device with no tuned kernel, unless not `required` (then "": the plan runs there with
// the device's own tuning).
std::string device_section(const std::string& device, bool required = true);

}  // namespace q8
