#include "engine/opencl/select.h"

namespace q8 {

std::string program_defines(const DeviceCaps& caps) { return caps.nvidia ? " -DQ8_NVIDIA_PTX=1" : ""; }

std::string select_gemm(int64_t k, int64_t n, const DeviceCaps& caps) {
  return caps.nvidia && k >= 4 && n >= 1 ? "qgemm_dp4a" : "qgemm";
}

}  // namespace q8
