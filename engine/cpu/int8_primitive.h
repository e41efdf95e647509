// INT8 convolution and matrix product through oneDNN, giving exact int32 sums: int8 activations,
// s8 weights, s32 results, no scales, no bias, no post-ops. The CPU INT8 backend
// (engine/plan/cpu_int8/) adds the bias and requantizes with the integer reference's own epilogue,
// so its bytes are the reference's (docs/cpu.md, "INT8").
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
  // nullptr when oneDNN has no implementation for the shape.
  static std::unique_ptr<Int8ConvPrimitive> create(const Int8ConvShape& shape);
  ~Int8ConvPrimitive();
  // Reorders W (ONNX's Conv [M, C/g, k…], ConvTranspose [C, M/g, k…]) into the primitive's layout, once.
  void set_weights(const int8_t* w);
  // acc = Σ x · w for one sample, on every compute thread.
  void run(const int8_t* x, int32_t* acc) const;
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
  static std::unique_ptr<Int8MatmulPrimitive> create(int64_t rows, int64_t k, int64_t n, bool trans_b);
  ~Int8MatmulPrimitive();
  void set_weights(const int8_t* w);
  void run(const int8_t* x, int32_t* acc) const;
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
