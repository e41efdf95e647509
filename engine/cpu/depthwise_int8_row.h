// The AVX-512 VNNI row kernel of the depthwise INT8 convolution (depthwise_int8.h), in a header of
// its own: the unit it is compiled in (with AVX-512) includes no library templates.
#pragma once

#include <cstdint>

namespace q8 {

// What the AVX-512 row kernel reads: the shape, the packed weights and the per-channel
// compensation (depthwise_int8.cpp packs them).
struct DepthwiseInt8Geometry {
  int64_t channels = 0, groups = 0;  // groups: 16-channel vectors, ⌈C / 16⌉
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_w = 0, quads = 0;  // quads: ⌈k_h / 4⌉ kernel rows of four
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1, pad_top = 0, pad_left = 0, kernel_h = 0;
  int64_t columns = 0;  // padded input columns an output row reads: (W_out − 1)·s_w + (k_w − 1)·d_w + 1
};

// What the kernel needs to requantize in registers (docs/cpu.md, "Requantized in the kernel"):
// per channel (groups · 16 of each, 0 past C) the start −128 · Σ w + b and the multiplier M, and
// the clamp's bounds.
struct DepthwiseInt8Requantization {
  const int32_t* start = nullptr;
  const float* m = nullptr;
  int32_t lo = -128, hi = 127;
};

// acc [W_out, C] = the sums of output row `row` of one sample x [H, W, C]; quads: columns ·
// quads · groups · 64 bytes of the thread's own.
void depthwise_int8_row_avx512(const DepthwiseInt8Geometry& g, const int8_t* weights, const int32_t* compensation, const int8_t* x,
                               int64_t row, int32_t* acc, uint8_t* quads);
// y [W_out, C] = output row `row` requantized: clamp(rne((float)(acc + b) · M), lo, hi).
void depthwise_int8_row_requantized_avx512(const DepthwiseInt8Geometry& g, const int8_t* weights, const DepthwiseInt8Requantization& r,
                                           const int8_t* x, int64_t row, int8_t* y, uint8_t* quads);

}  // namespace q8
