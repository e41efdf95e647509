#include "engine/cpu/depthwise_int8.h"

#include <algorithm>
#include <cstdlib>

#include "engine/cpu/gemm.h"

namespace q8 {

namespace {

bool cpu_has_kernel() {
  __builtin_cpu_init();
  return gemm_isa() == "avx512" && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni") &&
         __builtin_cpu_supports("avx512vbmi");
}

constexpr int64_t kMostKernel = 8;  // at most 16 weight vectors a channel group: 2 quads · 8 columns

}  // namespace

std::unique_ptr<DepthwiseInt8Conv> DepthwiseInt8Conv::create(const Int8ConvShape& shape, const int8_t* w,
                                                             const Int8Requantization* requantization) {
  static const bool has_kernel = cpu_has_kernel();
  const int64_t c = shape.channels_in;
  if (!has_kernel || shape.transposed || shape.in_spatial.size() != 2 || shape.group != c || shape.channels_out != c) return nullptr;
  if (shape.kernel[0] > kMostKernel || shape.kernel[1] > kMostKernel) return nullptr;
  if (c < 1 || shape.in_spatial[0] < 1 || shape.in_spatial[1] < 1 || shape.out_spatial[0] < 1 || shape.out_spatial[1] < 1) return nullptr;
  auto conv = std::unique_ptr<DepthwiseInt8Conv>(new DepthwiseInt8Conv());
  DepthwiseInt8Geometry& g = conv->g_;
  g.channels = c, g.groups = (c + 15) / 16;
  g.in_h = shape.in_spatial[0], g.in_w = shape.in_spatial[1], g.out_h = shape.out_spatial[0], g.out_w = shape.out_spatial[1];
  g.kernel_h = shape.kernel[0], g.kernel_w = shape.kernel[1], g.quads = (g.kernel_h + 3) / 4;
  g.stride_h = shape.strides[0], g.stride_w = shape.strides[1], g.dilation_h = shape.dilations[0], g.dilation_w = shape.dilations[1];
  g.pad_top = shape.pad_begin[0], g.pad_left = shape.pad_begin[1];
  g.columns = (g.out_w - 1) * g.stride_w + (g.kernel_w - 1) * g.dilation_w + 1;
  // W [M, 1, k_h, k_w] into [quad · k_w + k][group][channel of 16][row of 4], 0 past k_h and C.
  const int64_t taps = g.kernel_h * g.kernel_w;
  conv->weights_.assign(size_t(g.quads * g.kernel_w * g.groups * 64), 0);
  conv->compensation_.assign(size_t(g.groups * 16), 0);
  for (int64_t ch = 0; ch < c; ++ch) {
    int32_t sum = 0;
    for (int64_t r = 0; r < g.kernel_h; ++r)
      for (int64_t k = 0; k < g.kernel_w; ++k) {
        const int8_t v = w[ch * taps + r * g.kernel_w + k];
        sum += v;
        conv->weights_[size_t((((r / 4) * g.kernel_w + k) * g.groups * 16 + ch) * 4 + r % 4)] = v;
      }
    conv->compensation_[size_t(ch)] = -128 * sum;
  }
  if (requantization) {
    // |acc + b| ≤ 128 · Σ |w| + |b|: where that stays inside int32 for every channel, no sum the
    // reference forms overflows, and vpdpbusd's wrapping running sums end at acc + b.
    std::vector<int32_t> start(size_t(g.groups * 16), 0);
    bool fits = true;
    for (int64_t ch = 0; ch < c && fits; ++ch) {
      int64_t magnitude = 0;
      for (int64_t t = 0; t < taps; ++t) magnitude += std::abs(int64_t(w[ch * taps + t]));
      const int64_t b = requantization->bias[size_t(ch)];
      fits = 128 * magnitude + std::abs(b) <= int64_t(INT32_MAX);
      start[size_t(ch)] = int32_t(int64_t(conv->compensation_[size_t(ch)]) + b);
    }
    if (fits) {
      conv->start_ = std::move(start);
      conv->scale_.assign(size_t(g.groups * 16), 0.0f);
      std::copy(requantization->scale.begin(), requantization->scale.begin() + c, conv->scale_.begin());
      conv->lo_ = requantization->lo, conv->hi_ = requantization->hi;
    }
  }
  return conv;
}

uint8_t* DepthwiseInt8Conv::thread_quads() const {
  static thread_local std::vector<uint8_t> quads;  // this thread's
  const size_t bytes = size_t(g_.columns * g_.quads * g_.groups * 64);
  if (quads.size() < bytes) quads.resize(bytes);
  return quads.data();
}

void DepthwiseInt8Conv::run_row(const int8_t* x, int64_t row, int32_t* acc) const {
  depthwise_int8_row_avx512(g_, weights_.data(), compensation_.data(), x, row, acc, thread_quads());
}

void DepthwiseInt8Conv::run_row_requantized(const int8_t* x, int64_t row, int8_t* y) const {
  depthwise_int8_row_requantized_avx512(g_, weights_.data(), {start_.data(), scale_.data(), lo_, hi_}, x, row, y, thread_quads());
}

}  // namespace q8
