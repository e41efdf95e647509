// Conv and ConvTranspose through oneDNN. Each primitive is made for one sample (minibatch 1)
// and run once per sample, so a sample's arithmetic never depends on the batch it rides in
// (docs/cpu.md). oneDNN's fastest kernels read and write channels-last: a channels-first sample
// is reordered to channels-last and back while it is still in cache; a channels-last one (the
// com.ms.internal.nhwc ops) is read and written where it lies.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/ir/tensor.h"

namespace q8 {

// What a fused convolution (com.microsoft FusedConv) does after the sum, inside the same oneDNN
// primitive: y = act(conv(x) + b + z), z a tensor of y's shape when `sum`.
struct ConvEpilogue {
  enum class Activation { None, Relu, Clip };
  bool sum = false;
  Activation activation = Activation::None;
  float lo = 0.0f, hi = 0.0f;  // Clip's bounds

  bool operator==(const ConvEpilogue&) const = default;
};

struct ConvShape {
  bool transposed = false;
  bool channels_last = false;  // x, z and y are [N, S…, C] rather than [N, C, S…]
  ConvEpilogue epilogue;
  int64_t channels_in = 0, channels_out = 0, group = 1;
  Dims in_spatial, out_spatial;
  std::vector<int64_t> kernel, strides, dilations, pad_begin, pad_end;  // pads as oneDNN reads them
};

class ConvPrimitive {
 public:
  // nullptr when oneDNN has no implementation for this shape (the caller uses its own loops).
  static std::unique_ptr<ConvPrimitive> create(const ConvShape& shape);
  ~ConvPrimitive();

  // Reorders W (ONNX layout: Conv [M, C/g, k…], ConvTranspose [C, M/g, k…]) into the layout the
  // primitive reads; bias may be null.
  void set_weights(const float* w, const float* bias);
  // y[s] = conv(x[s]) for each of `samples` samples, then the epilogue (z: laid out like y, read
  // when the epilogue sums).
  void run(const float* x, const float* z, float* y, int64_t samples) const;

 private:
  struct Impl;
  explicit ConvPrimitive(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Primitives for one Conv or ConvTranspose node, made per input shape, with weights reordered
// once when they are constant.
class ConvPrimitiveCache {
 public:
  explicit ConvPrimitiveCache(bool constant_weights);
  ~ConvPrimitiveCache();
  // Runs the node's convolution through oneDNN; false when oneDNN cannot (nothing was written).
  bool run(const ConvShape& shape, const float* x, const float* w, const float* bias, const float* z, float* y, int64_t samples);

 private:
  struct Entry;
  bool constant_weights_;
  std::vector<std::unique_ptr<Entry>> entries_;
};

}  // namespace q8
