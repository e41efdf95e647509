// Launches qgemm_mma from the PTX NVIDIA's OpenCL compiled for q8's program (a file of q8's program
// cache) through the CUDA driver API, so that Nsight Compute, which does not see OpenCL's kernels,
// can profile it. The same arguments as the OpenCL backend's QGemm (engine/opencl/opencl_backend.cpp):
// y = x [n, n] · w_nk [n, n]ᵀ, int8 out. Built on the GPU machine by bench/run_ncu_qgemm.sh.
//   qgemm_cuda_launch PTX N TILE_ROWS TILE_COLS THREADS [LAUNCHES]
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* text = nullptr;
  cuGetErrorString(r, &text);
  std::fprintf(stderr, "qgemm_cuda_launch: %s: %s\n", what, text ? text : "unknown error");
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: qgemm_cuda_launch PTX N TILE_ROWS TILE_COLS THREADS [LAUNCHES]\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::string ptx = text.str();
  const int n = std::atoi(argv[2]), tile_rows = std::atoi(argv[3]), tile_cols = std::atoi(argv[4]), threads = std::atoi(argv[5]);
  const int launches = argc > 6 ? std::atoi(argv[6]) : 3;
  check(cuInit(0), "cuInit");
  CUdevice device;
  check(cuDeviceGet(&device, 0), "cuDeviceGet");
  CUcontext context;
  check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
  CUmodule module;
  check(cuModuleLoadData(&module, ptx.c_str()), "cuModuleLoadData (the PTX)");
  CUfunction f;
  check(cuModuleGetFunction(&f, module, "qgemm_mma"), "qgemm_mma in the PTX");
  const size_t square = size_t(n) * size_t(n);
  std::vector<signed char> host(square);
  for (size_t i = 0; i < square; ++i) host[i] = static_cast<signed char>(int((i * 2654435761u) >> 24) % 255 - 127);
  CUdeviceptr x, w, y, bias, scale;
  check(cuMemAlloc(&x, square), "x"), check(cuMemAlloc(&w, square), "w"), check(cuMemAlloc(&y, square), "y");
  check(cuMemAlloc(&bias, size_t(n) * 4), "bias"), check(cuMemAlloc(&scale, size_t(n) * 4), "scale");
  check(cuMemcpyHtoD(x, host.data(), square), "x up"), check(cuMemcpyHtoD(w, host.data(), square), "w up");
  check(cuMemsetD32(bias, 0, size_t(n)), "bias"), check(cuMemsetD32(scale, 0x38000000u, size_t(n)), "scale");  // 2^-15
  int rows = n, k = n, cols = n, spatial = 0, mode = 0, residual_spatial = 0, lo = -128, hi = 127;
  float r_scale = 0;
  void* args[] = {&x, &w, &rows, &k, &cols, &spatial, &mode, &y, &y, &bias, &bias, &scale, &y, &residual_spatial, &r_scale, &lo, &hi};
  const unsigned groups_n = unsigned((n + tile_cols - 1) / tile_cols), groups_m = unsigned((n + tile_rows - 1) / tile_rows);
  CUevent start, stop;
  check(cuEventCreate(&start, 0), "event"), check(cuEventCreate(&stop, 0), "event");
  check(cuEventRecord(start, nullptr), "record");
  for (int l = 0; l < launches; ++l)
    check(cuLaunchKernel(f, groups_n, groups_m, 1, unsigned(threads), 1, 1, 0, nullptr, args, nullptr), "cuLaunchKernel");
  check(cuEventRecord(stop, nullptr), "record");
  check(cuEventSynchronize(stop), "synchronize");
  float ms = 0;
  check(cuEventElapsedTime(&ms, start, stop), "elapsed");
  ms /= float(launches);
  std::printf("qgemm_mma through CUDA: n = %d, %u x %u work-groups of %d: %.3f ms, %.1f TOPS\n", n, groups_n, groups_m, threads, ms,
              2.0 * double(n) * double(n) * double(n) / (double(ms) * 1e-3) / 1e12);
  return 0;
}
