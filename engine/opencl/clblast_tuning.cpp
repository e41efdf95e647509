#include "engine/opencl/clblast_tuning.h"

#include <clblast.h>  // after q8's OpenCL headers, which fix the OpenCL version

namespace q8 {

namespace {

// Measured entries: device name → the parameters that won the sweep there.
const std::map<std::string, XgemmParams>& table() {
  static const std::map<std::string, XgemmParams> entries = {
      // `opencl_gemm --xgemm-sweep 4096 --repeat 5`, driver 580.159.04: 35.08 TFLOP/s, against
      // 28.79 with CLBlast's NVIDIA defaults (KWG 32, MWG = NWG = 64).
      {"NVIDIA H100 80GB HBM3",
       {{"GEMMK", 0}, {"KREG", 1}, {"KWG", 16}, {"KWI", 2}, {"MDIMA", 16}, {"MDIMC", 16}, {"MWG", 128}, {"NDIMB", 16}, {"NDIMC", 16},
        {"NWG", 128}, {"SA", 1}, {"SB", 1}, {"STRM", 0}, {"STRN", 0}, {"VWM", 4}, {"VWN", 4}}},
  };
  return entries;
}

}  // namespace

XgemmParams tuned_xgemm(const std::string& device_name) {
  const auto it = table().find(device_name);
  return it == table().end() ? XgemmParams{} : it->second;
}

void override_xgemm(cl_device_id device, const XgemmParams& params) {
  std::unordered_map<std::string, size_t> all;
  clblast::StatusCode s = clblast::RetrieveParameters(device, "Xgemm", clblast::Precision::kSingle, all);
  if (s == clblast::StatusCode::kSuccess) {
    for (const auto& [name, value] : params) all[name] = value;
    s = clblast::OverrideParameters(device, "Xgemm", clblast::Precision::kSingle, all);
  }
  check(s == clblast::StatusCode::kSuccess, "CLBlast refused Xgemm parameters: status " + std::to_string(int(s)));
}

std::vector<XgemmParams> xgemm_candidates() {
  // GEMMK 0 (the 2-D register tiling); MWG × NWG block tiles from 64 to 128, 16 × 16 threads,
  // 4- and 8-wide vectors, A and B staged in local memory.
  std::vector<XgemmParams> c;
  for (size_t mwg : {64, 128})
    for (size_t nwg : {64, 128})
      for (size_t kwg : {16, 32})
        for (size_t v : {2, 4}) {
          c.push_back({{"GEMMK", 0}, {"KREG", 1}, {"KWG", kwg}, {"KWI", 2}, {"MDIMA", 16}, {"MDIMC", 16}, {"MWG", mwg}, {"NDIMB", 16},
                       {"NDIMC", 16}, {"NWG", nwg}, {"SA", 1}, {"SB", 1}, {"STRM", 0}, {"STRN", 0}, {"VWM", v}, {"VWN", v}});
        }
  return c;
}

}  // namespace q8
