// qgemm_mma's tile: the shape of its work-groups and of its K pipeline.
#pragma once

#include <cstdint>
#include <map>
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

// The shape classes a device's tuning may give tiles of their own (select_mma_tile, in
// engine/opencl/select.h, says which class a GEMM falls in), in the order they are tried.
inline constexpr const char* kMmaClasses[] = {"narrow", "small", "deep", "wide"};

// A device's tuning and where it came from (engine/opencl/mma_tuning.h): the tile its program is
// built with, and the tiles of the shape classes that were tuned apart (by class name; a class
// without one runs select_mma_tile's rules on `tile`).
struct MmaTuning {
  MmaTile tile;
  std::map<std::string, MmaTile> classes;
  std::string source;  // "tuning database PATH", "q8's entry for NAME", "plan PATH" or "default"
  // "128x128x64/2x2/2" then " narrow 64x64x64/2x2/3 …" for each tuned class.
  std::string describe() const;
  bool operator==(const MmaTuning& o) const { return tile == o.tile && classes == o.classes; }
};

}  // namespace q8
