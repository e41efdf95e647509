// The order GlobalAveragePool sums a plane in (docs/cpu.md, "Every other op"), one definition for the
// channels-first and channels-last CPU ops and the OpenCL kernel (kernels/global_average_pool.cl),
// and for the sums of LayerNormalization and Softmax (lane_sum below):
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

// The sum of value(i), a double, for i in [0, n) in that order: what LayerNormalization's mean and
// variance and Softmax's denominator sum too (their OpenCL kernels, 64 lanes a row, alike).
// (Whole strides of kPlaneSumLanes first, lane by lane, then the rest: the same additions to each
// partial sum in the same order, written so that the compiler can vectorize the strides.)
template <typename F>
double lane_sum(int64_t n, F&& value) {
  double s[kPlaneSumLanes] = {};
  int64_t i = 0;
  for (; i + kPlaneSumLanes <= n; i += kPlaneSumLanes)
    for (int64_t j = 0; j < kPlaneSumLanes; ++j) s[j] += value(i + j);
  for (; i < n; ++i) s[i % kPlaneSumLanes] += value(i);
  return halving_sum(s);
}

}  // namespace q8
