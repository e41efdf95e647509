// CLBlast's SGEMM kernel (Xgemm) parameters for devices whose name its database has no entry for
// (libclblast 1.5.3, Debian 12's), measured on those devices with `bench/opencl_gemm
// --xgemm-sweep`. Without an entry, CLBlast runs a device with its vendor's defaults.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/opencl/device.h"

namespace q8 {

using XgemmParams = std::map<std::string, size_t>;

// q8's entry for a device name, or empty.
XgemmParams tuned_xgemm(const std::string& device_name);

// Sets params (over CLBlast's own for the rest) for single-precision Xgemm on device; Error with
// CLBlast's status when it refuses them.
void override_xgemm(cl_device_id device, const XgemmParams& params);

// The candidates bench/opencl_gemm --xgemm-sweep times: tile shapes for large GPUs.
std::vector<XgemmParams> xgemm_candidates();

}  // namespace q8
