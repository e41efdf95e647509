// Which kernel variant runs an op on a device: a pure function of the shape and the device's
// capabilities (unit-tested), so a plan's choices can be reasoned about and recorded.
#pragma once

#include <cstdint>
#include <string>

#include "engine/opencl/device.h"

namespace q8 {

// A tile from its name; Error naming what is wrong where the kernel cannot take it (warp tiles
// that are not whole m16 × n8 tiles, depth, stages) or where caps' device cannot (__local
// memory, work-group size).
MmaTile parse_mma_tile(const std::string& name, const DeviceCaps& caps);
// The same checks on a tile already made.
void check_mma_tile(const MmaTile& tile, const DeviceCaps& caps);

// The build options of the q8 program on a device besides -cl-std: IEEE-exact float division
// where the device offers it (QuantizeLinear's x / s, HardSwish's x / 6), -DQ8_FP64=1 where it
// has doubles (GlobalAveragePool's sums), and -DQ8_NVIDIA_PTX=1 on NVIDIA, whose OpenCL takes
// inline PTX, with qgemm_mma's tile.
std::string program_defines(const DeviceCaps& caps, const MmaTile& tile = kMmaTile);

// QGemm: "qgemm_mma" (tensor cores) on NVIDIA sm_80 and later when K holds at least one 32-wide
// step, else "qgemm_dp4a" on NVIDIA when K holds at least one group of four (both read w packed
// [N, K]), else "qgemm" (portable).
std::string select_gemm(int64_t k, int64_t n, const DeviceCaps& caps);

// The shape class of a tensor-core GEMM of y [rows, n] = x [rows, k] · wᵀ, the first of
// kMmaClasses that holds:
//   "narrow" n ≤ 64 (half of a 128-wide tile or more would be empty: ResNet's 64-channel convs);
//   "small"  fewer 128 × 128 tiles of y than the device has compute units (the 7 × 7 layers of
//            a ResNet at batch 64, every layer at batch 1);
//   "deep"   k ≥ 1024 (3 × 3 convs from 128 channels, square GEMMs);
//   "wide"   the rest (1 × 1 convs over large images).
std::string mma_shape_class(int64_t rows, int64_t k, int64_t n, const DeviceCaps& caps);

// The tile a tensor-core QGemm of [rows, k] · [k, n] runs with: its shape class's tile where the
// tuning has one (and that tile's row groups fit kMaxMmaRowGroups), else the rules: the device's
// tile, or kSmallMmaTile where the device's would leave half its columns empty (n ≤ cols / 2) or
// give fewer work-groups than the device has compute units, and the small tile is another and its
// row groups fit kMaxMmaRowGroups. A pure function of the shape, the tuning and the compute units
// (docs/opencl.md, "Tuning", has the measurements behind the two thresholds).
inline constexpr MmaTile kSmallMmaTile{64, 64, 2, 2, 64, 3};
// Work-groups along a launch's second axis that NVIDIA's OpenCL takes (a CUDA grid's y): the
// small tile is not picked where its row groups would be more.
inline constexpr int64_t kMaxMmaRowGroups = 65535;
MmaTile select_mma_tile(int64_t rows, int64_t k, int64_t n, const MmaTuning& tuning, const DeviceCaps& caps);

// Split-K (docs/opencl.md, "Split-K"): how many work-groups share each tile's K steps, 1 for none.
// A GEMM whose tiles fill at most half the device's compute units and whose K holds at least
// 2 · kMinSplitSteps steps of the tile's depth is split into Z = min(⌈units / tiles⌉,
// ⌊steps / kMinSplitSteps⌋, kMaxSplits) parts, fewer where Z int32 copies of y would pass
// kMaxSplitBytes, then Z = ⌈steps / ⌈steps / Z⌉⌉ so that every part has steps.
inline constexpr int64_t kMinSplitSteps = 4, kMaxSplits = 16, kMaxSplitBytes = int64_t(32) << 20;
int mma_split_k(int64_t rows, int64_t k, int64_t n, const MmaTile& tile, const DeviceCaps& caps);

// QConv: "qconv_mma" (im2col.cl's rows, then qgemm_mma) on the devices where select_gemm takes the
// tensor cores, for convs of one group with K = C · taps ≥ 8 (im2col pads K with zeros to whole
// steps: at K = 16 or 27 half the products are zeros, and still far faster than the portable
// kernel, a loop of C · taps per output), else "qconv" (portable).
std::string select_conv(int64_t c, int64_t taps, int64_t group, const DeviceCaps& caps);

}  // namespace q8
