#include "engine/opencl/select.h"

namespace q8 {

std::string program_defines(const DeviceCaps& caps) {
  std::string options;
  if (caps.exact_divide) options += " -cl-fp32-correctly-rounded-divide-sqrt";
  if (caps.extensions.find("cl_khr_fp64") != std::string::npos) options += " -DQ8_FP64=1";
  if (caps.nvidia)
    options += " -DQ8_NVIDIA_PTX=1 -DQ8_MMA_BM=" + std::to_string(kMmaTile.rows) + " -DQ8_MMA_BN=" + std::to_string(kMmaTile.cols) +
               " -DQ8_MMA_WARPS_M=" + std::to_string(kMmaTile.warps_m) + " -DQ8_MMA_WARPS_N=" + std::to_string(kMmaTile.warps_n);
  return options;
}

std::string select_conv(int64_t c, int64_t taps, int64_t group, const DeviceCaps& caps) {
  return group == 1 && select_gemm(c * taps, 1, caps) == "qgemm_mma" ? "qconv_mma" : "qconv";
}

std::string select_gemm(int64_t k, int64_t n, const DeviceCaps& caps) {
  if (caps.nvidia && caps.nv_sm >= 80 && k >= 32 && n >= 1) return "qgemm_mma";
  return caps.nvidia && k >= 4 && n >= 1 ? "qgemm_dp4a" : "qgemm";
}

}  // namespace q8
