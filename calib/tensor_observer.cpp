#include "calib/tensor_observer.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace q8 {

void TensorStats::merge(const TensorStats& o) {
  elements += o.elements, zeros += o.zeros, nan += o.nan, pos_inf += o.pos_inf, neg_inf += o.neg_inf;
  min = std::min(min, o.min), max = std::max(max, o.max), max_abs = std::max(max_abs, o.max_abs);
}

void TensorObserver::observe(const Tensor& t) {
  const float* p = t.data<float>();
  const int64_t n = t.numel();
  // Pass 1: statistics; NaN and Inf are counted and set aside.
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  uint64_t zeros = 0, nonfinite = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float v = p[i];
    if (!std::isfinite(v)) {
      ++nonfinite;
      continue;
    }
    lo = std::min(lo, v), hi = std::max(hi, v);
    zeros += v == 0.0f;
  }
  std::vector<float> finite;
  const float* values = p;
  int64_t count = n;
  if (nonfinite) {
    finite.reserve(size_t(n));
    for (int64_t i = 0; i < n; ++i) {
      const float v = p[i];
      if (std::isnan(v)) ++stats_.nan;
      else if (std::isinf(v)) ++(v > 0 ? stats_.pos_inf : stats_.neg_inf);
      else finite.push_back(v);
    }
    values = finite.data();
    count = int64_t(finite.size());
  }
  stats_.elements += uint64_t(count);
  stats_.zeros += zeros;
  if (count == 0) return;
  stats_.min = std::min(stats_.min, double(lo));
  stats_.max = std::max(stats_.max, double(hi));
  const float max_abs = std::max(std::fabs(lo), std::fabs(hi));
  stats_.max_abs = std::max(stats_.max_abs, double(max_abs));
  // Pass 2: the histogram.
  histogram_.add(values, count, max_abs, !skip_zeros_);
}

void TensorObserver::merge(const TensorObserver& other) {
  stats_.merge(other.stats_);
  histogram_.merge(other.histogram_);
}

}  // namespace q8
