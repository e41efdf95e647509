#include "engine/ops/conv_common.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "engine/cpu/blas.h"

namespace q8 {

ConvGeometry::ConvGeometry(const ResolvedWindow& w, const Dims& in) {
  const size_t rank = in.size();
  for (size_t d = 0; d < rank; ++d) {
    in_size *= in[d];
    out_size *= w.output[d];
    kernel_size *= w.kernel[d];
  }
  pointwise_ = true;
  for (size_t d = 0; d < rank; ++d)
    pointwise_ = pointwise_ && w.kernel[d] == 1 && w.strides[d] == 1 && w.pad_begin[d] == 0 && w.pad_end[d] == 0 &&
                 w.output[d] == in[d];
  offsets_.assign(size_t(kernel_size * out_size), -1);
  std::vector<int64_t> k(rank, 0), o(rank, 0);
  for (int64_t ki = 0; ki < kernel_size; ++ki) {
    // k = multi-index of ki over the kernel
    for (int64_t rest = ki, d = int64_t(rank) - 1; d >= 0; --d) {
      k[size_t(d)] = rest % w.kernel[size_t(d)];
      rest /= w.kernel[size_t(d)];
    }
    for (int64_t oi = 0; oi < out_size; ++oi) {
      int64_t offset = 0;
      bool inside = true;
      for (int64_t rest = oi, d = int64_t(rank) - 1; d >= 0; --d) {
        const size_t u = size_t(d);
        o[u] = rest % w.output[u];
        rest /= w.output[u];
      }
      for (size_t d = 0; d < rank && inside; ++d) {
        const int64_t pos = o[d] * w.strides[d] - w.pad_begin[d] + k[d] * w.dilations[d];
        inside = pos >= 0 && pos < in[d];
        offset = offset * in[d] + pos;
      }
      if (inside) offsets_[size_t(ki * out_size + oi)] = offset;
    }
  }
}

bool ConvGeometry::is_pointwise() const { return pointwise_; }

void ConvGeometry::im2col(const float* image, int64_t channels, float* col) const {
  for (int64_t c = 0; c < channels; ++c) {
    const float* src = image + c * in_size;
    for (int64_t ki = 0; ki < kernel_size; ++ki) {
      const int64_t* off = offsets_.data() + ki * out_size;
      float* dst = col + (c * kernel_size + ki) * out_size;
      for (int64_t o = 0; o < out_size; ++o) dst[o] = off[o] >= 0 ? src[off[o]] : 0.0f;
    }
  }
}

void ConvGeometry::col2im(const float* col, int64_t channels, float* image) const {
  for (int64_t c = 0; c < channels; ++c) {
    float* dst = image + c * in_size;
    for (int64_t ki = 0; ki < kernel_size; ++ki) {
      const int64_t* off = offsets_.data() + ki * out_size;
      const float* src = col + (c * kernel_size + ki) * out_size;
      for (int64_t o = 0; o < out_size; ++o)
        if (off[o] >= 0) dst[off[o]] += src[o];
    }
  }
}

void run_per_sample(int64_t n, const std::function<void(int64_t, std::vector<float>&)>& fn) {
  const int threads = compute_threads();
  if (threads > 1 && n >= threads) {
    SingleThreadedBlas single;
#pragma omp parallel num_threads(threads)
    {
      std::vector<float> scratch;
#pragma omp for schedule(dynamic)
      for (int64_t i = 0; i < n; ++i) fn(i, scratch);
    }
    return;
  }
  std::vector<float> scratch;
  for (int64_t i = 0; i < n; ++i) fn(i, scratch);
}

void add_channel_bias(float* y, const float* bias, int64_t channels, int64_t size) {
  for (int64_t c = 0; c < channels; ++c) {
    float* row = y + c * size;
    const float b = bias[c];
    for (int64_t p = 0; p < size; ++p) row[p] += b;
  }
}

}  // namespace q8
