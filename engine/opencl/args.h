// Sets a kernel's arguments in order from C++ values: a Tensor on the device passes its buffer,
// anything else its bytes (int, float, cl_long…).
#pragma once

#include <string>

#include "engine/opencl/device.h"

namespace q8 {

namespace detail {
inline void set_arg(cl_kernel k, cl_uint i, const Tensor& t) {
  cl_mem m = buffer_of(t);
  cl_check(clSetKernelArg(k, i, sizeof m, &m), "OpenCL kernel argument " + std::to_string(i));
}
template <typename T>
void set_arg(cl_kernel k, cl_uint i, const T& v) {
  cl_check(clSetKernelArg(k, i, sizeof v, &v), "OpenCL kernel argument " + std::to_string(i));
}
}  // namespace detail

template <typename... Args>
void set_args(cl_kernel kernel, const Args&... args) {
  cl_uint i = 0;
  (detail::set_arg(kernel, i++, args), ...);
}

}  // namespace q8
