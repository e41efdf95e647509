// The order GlobalAveragePool sums a plane in (docs/cpu.md, "Every other op"), one definition for the
// channels-first and channels-last CPU ops and the OpenCL kernel (kernels/global_average_pool.cl):
// in double, value i into partial sum i mod 64 (in increasing i, each from 0.0), then the 64 partial
// sums halved pairwise, s[j] = s[j] + s[j + w] for w = 32, 16, …, 1, to s[0]. A work-group of 64
// lanes follows it with each lane reading every 64th value, neighbours reading neighbours.
#pragma once

#include <cstdint>

#include "kernels/abi.h"

namespace q8 {

inline constexpr int64_t kPlaneSumLanes = Q8_PLANE_SUM_LANES;

// s[0] after the halving; s holds kPlaneSumLanes partial sums and is overwritten.
inline double halving_sum(double* s) {
  for (int64_t w = kPlaneSumLanes / 2; w > 0; w /= 2)
    for (int64_t j = 0; j < w; ++j) s[j] = s[j] + s[j + w];
  return s[0];
}

}  // namespace q8
