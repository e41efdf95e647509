// OpenCL status codes by name, and the one check every call goes through.
#pragma once

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <string>

namespace q8 {

// "CL_OUT_OF_RESOURCES (-5)"; "CL status -1234" for a code OpenCL 1.2 does not name.
std::string cl_status_name(cl_int status);
// Throws Error "<what>: <status name>" unless status is CL_SUCCESS; out-of-memory codes say so.
void cl_check(cl_int status, const std::string& what);

}  // namespace q8
