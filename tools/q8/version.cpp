#include "tools/q8/version.h"

#include <H5public.h>
#include <dnnl.h>
#include <google/protobuf/stubs/common.h>
#include <spdlog/version.h>

#include <string>

#include "engine/cpu/gemm.h"
#include "engine/cpu/threads.h"
#include "engine/io/log.h"
#ifdef Q8_WITH_OPENCL
#include "engine/opencl/device.h"

#include <clblast.h>  // after q8's OpenCL headers, which fix the OpenCL version
#endif

namespace q8::cli {

namespace {

std::string dotted(long major, long minor, long patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::string onednn_isa() {
  switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    case dnnl_cpu_isa_sse41: return "sse41";
    case dnnl_cpu_isa_avx: return "avx";
    default: return "other";
  }
}

}  // namespace

void print_version() {
  const dnnl_version_t* dnnl = dnnl_version();
  unsigned hdf5_major = 0, hdf5_minor = 0, hdf5_release = 0;
  H5get_libversion(&hdf5_major, &hdf5_minor, &hdf5_release);
  log::info("q8 %s", Q8_VERSION);
  log::info("  ONNX       %s (protobuf %s)", Q8_ONNX_VERSION,
            google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION).c_str());
  log::info("  oneDNN     %s (CPU ISA %s)", dotted(dnnl->major, dnnl->minor, dnnl->patch).c_str(), onednn_isa().c_str());
  log::info("  q8 GEMM    %s; %d threads", std::string(gemm_isa()).c_str(), compute_threads());
  log::info("  HDF5       %s", dotted(hdf5_major, hdf5_minor, hdf5_release).c_str());
  log::info("  spdlog     %s", dotted(SPDLOG_VER_MAJOR, SPDLOG_VER_MINOR, SPDLOG_VER_PATCH).c_str());
#ifdef Q8_WITH_OPENCL
  log::info("  CLBlast    %s", dotted(CLBLAST_VERSION_MAJOR, CLBLAST_VERSION_MINOR, CLBLAST_VERSION_PATCH).c_str());
  const std::vector<DeviceCaps> devices = list_devices();
  if (devices.empty()) log::info("OpenCL devices: none (no OpenCL platform found)");
  else log::info("OpenCL devices (--device opencl:N):");
  for (size_t i = 0; i < devices.size(); ++i) log::info("  opencl:%zu  %s", i, devices[i].describe().c_str());
#else
  log::info("OpenCL: not built (Q8_OPENCL=OFF)");
#endif
}

}  // namespace q8::cli
