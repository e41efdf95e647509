// qgemm_mma's tile: the shape of its work-groups and of its K pipeline.
#pragma once

#include <cstdint>
#include <string>

namespace q8 {

// qgemm_mma's tile (kernels/qgemm_mma.cl, which program_defines passes it to): a work-group of
// warps_m × warps_n warps computes rows × cols of y, K in steps of `depth` (32 or 64) through a
// ring of `stages` (2 to 4) __local buffers.
struct MmaTile {
  int rows = 128, cols = 128, warps_m = 2, warps_n = 2, depth = 32, stages = 2;
  int threads() const { return 32 * warps_m * warps_n; }
  // The __local bytes of the ring: stages · (rows + cols) rows of depth + 16 bytes.
  int64_t local_bytes() const { return int64_t(stages) * (rows + cols) * (depth + 16); }
  // "128x128x32/2x2/2": rows x cols x depth / warps_m x warps_n / stages.
  std::string name() const;
  bool operator==(const MmaTile&) const = default;
};
inline constexpr MmaTile kMmaTile{};

// A device's tile and where it came from (engine/opencl/mma_tuning.h).
struct TunedTile {
  MmaTile tile;
  std::string source;  // "tuning database PATH", "q8's entry for NAME" or "default"
};

}  // namespace q8
