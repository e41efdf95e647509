// INT8 convolution and matrix product through oneDNN, giving exact int32 sums: int8 activations,
// s8 weights, s32 results, no scales, no bias, no post-ops. The CPU INT8 backend
// (engine/plan/cpu_int8/) adds the bias and requantizes with the integer reference's own epilogue,
// so its bytes are the reference's (docs/cpu.md, "INT8"). Where oneDNN's own requantization is
// provably the reference's (requantization_is_exact), a primitive made with an Int8Requantization
// writes the int8 output itself.
//
// With VNNI (vpdpbusd) or AMX oneDNN sums s8 × s8 products in int32 throughout and the
// primitives take s8 activations. Below them its x86 kernels pair u8 × s8 products in int16
// (vpmaddubsw saturates) and halve the weights of an s8 source; so there the primitives take u8
// sources whose pairs cannot saturate: x ≥ 0 as it is, a signed x as two sums, of max(x, 0) and
// max(−x, 0) (int8_primitive.cpp, sum_by_sign). Exact on every instruction set either way.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/ir/tensor.h"

namespace q8 {

// True when oneDNN's effective instruction set has VNNI or AMX (ONEDNN_MAX_CPU_ISA caps it): it
// sums an s8 source exactly; else signed sources are summed in two halves.
bool onednn_int8_vnni();
// oneDNN's effective instruction set, by its name ("avx512_core_vnni").
std::string onednn_isa_name();

// The requantization oneDNN can apply itself, y = clamp(rne((float)(acc + b) · M), lo, hi) with an
// int8 destination (docs/cpu.md, "oneDNN's own requantization, where it is the reference's").
struct Int8Requantization {
  std::vector<int32_t> bias;  // b, one per output channel
  std::vector<float> scale;   // M, one per output channel
  int32_t lo = -128, hi = 127;
};

// Whether oneDNN's requantization gives the reference's bytes: the primitives take s8 sources in
// one pass (onednn_int8_vnni), and 128 · Σ_k |w[c, k]| + |b[c]| ≤ 2^24 for every channel c, the
// weights of channel c being w[c · channel_stride + k · k_stride], k < k_count.
bool requantization_is_exact(const int8_t* w, int64_t channels, int64_t channel_stride, int64_t k_count, int64_t k_stride,
                             const int32_t* bias);

// One sample's convolution or transposed convolution: x [S…, C] channels-last int8 in, acc
// [S_out…, M] channels-last int32 out (position-major, channels fastest).
struct Int8ConvShape {
  bool transposed = false;
  int64_t channels_in = 0, channels_out = 0, group = 1;
  Dims in_spatial, out_spatial;
  std::vector<int64_t> kernel, strides, dilations, pad_begin, pad_end;

  bool operator==(const Int8ConvShape&) const = default;
};

class Int8ConvPrimitive {
 public:
  // nullptr when oneDNN has no implementation for the shape. With `requantization` the primitive
  // writes int8 outputs (run_requantized) instead of int32 sums.
  static std::unique_ptr<Int8ConvPrimitive> create(const Int8ConvShape& shape, const Int8Requantization* requantization = nullptr);
  ~Int8ConvPrimitive();
  // Reorders W (ONNX's Conv [M, C/g, k…], ConvTranspose [C, M/g, k…]) into the primitive's layout, once.
  void set_weights(const int8_t* w);
  // acc = Σ x · w for one sample, on every compute thread.
  void run(const int8_t* x, int32_t* acc) const;
  // y = the requantization of Σ x · w for one sample (a primitive made with one).
  void run_requantized(const int8_t* x, int8_t* y) const;
  bool requantizes() const;
  // The kernel oneDNN chose ("brg:avx512_core_vnni").
  std::string implementation() const;

 private:
  struct Impl;
  explicit Int8ConvPrimitive(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// acc [rows, N] = x [rows, K] · W, W int8 [K, N] (or [N, K] transposed), all row-major.
class Int8MatmulPrimitive {
 public:
  static std::unique_ptr<Int8MatmulPrimitive> create(int64_t rows, int64_t k, int64_t n, bool trans_b,
                                                     const Int8Requantization* requantization = nullptr);
  ~Int8MatmulPrimitive();
  void set_weights(const int8_t* w);
  void run(const int8_t* x, int32_t* acc) const;
  // y [rows, N] = the requantization of x · W (a primitive made with one).
  void run_requantized(const int8_t* x, int8_t* y) const;
  bool requantizes() const;
  std::string implementation() const;

 private:
  struct Impl;
  explicit Int8MatmulPrimitive(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// acc [B, M, N] = a [B, M, K] · b [B, K, N], both int8 activations, all row-major (B may be 1).
class Int8BatchedMatmulPrimitive {
 public:
  static std::unique_ptr<Int8BatchedMatmulPrimitive> create(int64_t batch, int64_t m, int64_t k, int64_t n);
  ~Int8BatchedMatmulPrimitive();
  void run(const int8_t* a, const int8_t* b, int32_t* acc) const;

 private:
  struct Impl;
  explicit Int8BatchedMatmulPrimitive(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace q8
