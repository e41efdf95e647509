// Depthwise INT8 convolution (group = C = M, 2-D, channels-last) on AVX-512 VNNI: four kernel rows
// a vpdpbusd, the exact int32 sums Σ x · w of the integer reference, an output row at a time
// (docs/cpu.md, "Depthwise convolution: q8's own kernel on VNNI").
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/cpu/depthwise_int8_row.h"
#include "engine/cpu/int8_primitive.h"

namespace q8 {

class DepthwiseInt8Conv {
 public:
  // nullptr unless `shape` is a 2-D depthwise convolution with a kernel of at most 8 × 8 and a
  // non-empty input and output, and the CPU has AVX-512 VNNI, BW and VBMI (and Q8_MAX_CPU_ISA
  // allows AVX-512).
  // With `requantization` (bias and M per channel, the clamp's bounds) the kernel requantizes in
  // its registers where 128 · Σ |w[c]| + |b[c]| < 2^31 for every channel (requantizes() says
  // whether it does; docs/cpu.md, "Requantized in the kernel").
  static std::unique_ptr<DepthwiseInt8Conv> create(const Int8ConvShape& shape, const int8_t* w,
                                                   const Int8Requantization* requantization = nullptr);
  bool requantizes() const { return !start_.empty(); }
  // acc [W_out, C] = the sums of output row `row` of one sample x [H, W, C] (channels-last).
  void run_row(const int8_t* x, int64_t row, int32_t* acc) const;
  // y [W_out, C] = output row `row` requantized (requantizes() only).
  void run_row_requantized(const int8_t* x, int64_t row, int8_t* y) const;
  int64_t out_rows() const { return g_.out_h; }
  int64_t out_cols() const { return g_.out_w; }

 private:
  uint8_t* thread_quads() const;  // the calling thread's quad buffer, sized for this shape

  DepthwiseInt8Geometry g_;
  std::vector<int8_t> weights_;  // [quads · k_w][groups][16 channels][4 rows]
  std::vector<int32_t> compensation_;  // [groups · 16]: −128 · Σ w of each channel
  std::vector<int32_t> start_;         // [groups · 16]: −128 · Σ w + b, where it requantizes
  std::vector<float> scale_;           // [groups · 16]: M
  int32_t lo_ = -128, hi_ = 127;
};

}  // namespace q8
