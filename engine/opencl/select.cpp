#include "engine/opencl/select.h"

#include <algorithm>
#include <cstdio>

#include "engine/ir/error.h"

namespace q8 {

std::string MmaTile::name() const {
  return std::to_string(rows) + "x" + std::to_string(cols) + "x" + std::to_string(depth) + "/" + std::to_string(warps_m) + "x" +
         std::to_string(warps_n) + "/" + std::to_string(stages);
}

void check_mma_tile(const MmaTile& t, const DeviceCaps& caps) {
  const auto bad = [&](const std::string& why) { return "qgemm_mma tile '" + t.name() + "': " + why; };
  check(t.warps_m > 0 && t.warps_n > 0 && t.rows > 0 && t.cols > 0 && t.rows % (16 * t.warps_m) == 0 && t.cols % (8 * t.warps_n) == 0,
        bad("each warp's part must be whole m16 x n8 tiles"));
  check(t.depth == 32 || t.depth == 64, bad("depth must be 32 or 64"));
  check(t.stages >= 2 && t.stages <= 4, bad("stages must be 2, 3 or 4"));
  // The epilogue stages 16 rows of int32 accumulators at least in the ring (qgemm_mma.cl).
  check(t.local_bytes() >= 4 * 16 * (t.cols + 8) && t.local_bytes() >= 4 * 20 * t.cols, bad("the ring cannot hold 16 rows of accumulators"));
  check(size_t(t.threads()) <= caps.max_work_group || caps.max_work_group == 0,
        bad(std::to_string(t.threads()) + " work-items, the device takes " + std::to_string(caps.max_work_group)));
  check(uint64_t(t.local_bytes()) <= caps.local_memory || caps.local_memory == 0,
        bad(std::to_string(t.local_bytes()) + " bytes of __local memory, the device has " + std::to_string(caps.local_memory)));
}

MmaTile parse_mma_tile(const std::string& name, const DeviceCaps& caps) {
  MmaTile t;
  char end = 0;
  const int fields = std::sscanf(name.c_str(), "%dx%dx%d/%dx%d/%d%c", &t.rows, &t.cols, &t.depth, &t.warps_m, &t.warps_n, &t.stages, &end);
  check(fields == 6, "qgemm_mma tile '" + name + "': expected ROWSxCOLSxDEPTH/WARPS_MxWARPS_N/STAGES, e.g. " + kMmaTile.name());
  check_mma_tile(t, caps);
  return t;
}

std::string program_defines(const DeviceCaps& caps, const MmaTile& tile) {
  std::string options;
  if (caps.exact_divide) options += " -cl-fp32-correctly-rounded-divide-sqrt";
  if (caps.doubles()) options += " -DQ8_FP64=1";
  if (caps.nvidia)
    options += " -DQ8_NVIDIA_PTX=1 -DQ8_MMA_BM=" + std::to_string(tile.rows) + " -DQ8_MMA_BN=" + std::to_string(tile.cols) +
               " -DQ8_MMA_WARPS_M=" + std::to_string(tile.warps_m) + " -DQ8_MMA_WARPS_N=" + std::to_string(tile.warps_n) +
               " -DQ8_MMA_BK=" + std::to_string(tile.depth) + " -DQ8_MMA_STAGES=" + std::to_string(tile.stages);
  return options;
}

std::string select_conv(int64_t c, int64_t taps, int64_t group, const DeviceCaps& caps) {
  return group == 1 && c * taps >= 8 && caps.tensor_cores() ? "qconv_mma" : "qconv";
}

std::string MmaTuning::describe() const {
  std::string s = tile.name();
  for (const auto& [name, t] : classes) s += " " + name + " " + t.name();
  return s;
}

std::string mma_shape_class(int64_t rows, int64_t k, int64_t n, const DeviceCaps& caps) {
  const int64_t tiles = (rows + 127) / 128 * ((n + 127) / 128);
  if (n <= 64) return "narrow";
  if (tiles < int64_t(caps.compute_units)) return "small";
  return k >= 1024 ? "deep" : "wide";
}

MmaTile select_mma_tile(int64_t rows, int64_t k, int64_t n, const MmaTuning& tuning, const DeviceCaps& caps) {
  const auto fits = [&](const MmaTile& t) { return (rows + t.rows - 1) / t.rows <= kMaxMmaRowGroups; };
  if (const auto it = tuning.classes.find(mma_shape_class(rows, k, n, caps)); it != tuning.classes.end() && fits(it->second))
    return it->second;
  const MmaTile& device_tile = tuning.tile;
  const int64_t groups = (rows + device_tile.rows - 1) / device_tile.rows * ((n + device_tile.cols - 1) / device_tile.cols);
  const bool narrow = 2 * n <= device_tile.cols, few = groups < int64_t(caps.compute_units);
  return (narrow || few) && fits(kSmallMmaTile) ? kSmallMmaTile : device_tile;
}

int mma_split_k(int64_t rows, int64_t k, int64_t n, const MmaTile& tile, const DeviceCaps& caps) {
  const auto up = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  const int64_t tiles = up(rows, tile.rows) * up(n, tile.cols), steps = up(k, tile.depth), units = int64_t(caps.compute_units);
  if (2 * tiles > units || steps < 2 * kMinSplitSteps) return 1;
  int64_t z = std::min({up(units, tiles), steps / kMinSplitSteps, kMaxSplits});
  while (z > 1 && z * rows * n * 4 > kMaxSplitBytes) --z;
  return int(up(steps, up(steps, z)));
}

std::string select_gemm(int64_t k, int64_t n, const DeviceCaps& caps) {
  if (caps.tensor_cores() && k >= 32 && n >= 1) return "qgemm_mma";
  return caps.nvidia && k >= 4 && n >= 1 ? "qgemm_dp4a" : "qgemm";
}

}  // namespace q8
