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

// The tile a tensor-core QGemm of [rows, n] runs with: the device's, or kSmallMmaTile where the
// device's would leave half its columns empty (n ≤ cols / 2) or give fewer work-groups than the
// device has compute units (small grids: the 7 × 7 layers of a ResNet at batch 64, batch 1), and
// the small tile is another and its row groups fit kMaxMmaRowGroups. A pure function of the
// shape, the device's tile and its compute units (docs/opencl.md, "Tuning", has the measurements
// behind the two thresholds).
inline constexpr MmaTile kSmallMmaTile{64, 64, 2, 2, 64, 3};
// Work-groups along a launch's second axis that NVIDIA's OpenCL takes (a CUDA grid's y): the
// small tile is not picked where its row groups would be more.
inline constexpr int64_t kMaxMmaRowGroups = 65535;
MmaTile select_mma_tile(int64_t rows, int64_t n, const MmaTile& device_tile, const DeviceCaps& caps);

// QConv: "qconv_mma" (im2col.cl's rows, then qgemm_mma) on the devices where select_gemm takes the
// tensor cores, for convs of one group with K = C · taps ≥ 8 (im2col pads K with zeros to whole
// steps: at K = 16 or 27 half the products are zeros, and still far faster than the portable
// kernel, a loop of C · taps per output), else "qconv" (portable).
std::string select_conv(int64_t c, int64_t taps, int64_t group, const DeviceCaps& caps);

}  // namespace q8
