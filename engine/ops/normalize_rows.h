// What InstanceNormalization, GroupNormalization and MeanVarianceNormalization share: each row of
// len contiguous values becomes (x − mean) / sqrt(var + epsilon), var the biased variance, both
// summed in double.
#pragma once

#include <cmath>
#include <cstdint>

namespace q8 {

inline void normalize_row(const float* x, float* y, int64_t len, double epsilon) {
  double sum = 0, sq = 0;
  for (int64_t j = 0; j < len; ++j) sum += x[j];
  const double mean = len ? sum / double(len) : 0.0;
  for (int64_t j = 0; j < len; ++j) sq += (x[j] - mean) * (x[j] - mean);
  const double inv = 1.0 / std::sqrt((len ? sq / double(len) : 0.0) + epsilon);
  for (int64_t j = 0; j < len; ++j) y[j] = float((x[j] - mean) * inv);
}

}  // namespace q8
