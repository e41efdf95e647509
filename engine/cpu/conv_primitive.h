// Conv and ConvTranspose through oneDNN. Each primitive is made for one sample (minibatch 1)
// and run once per sample, so a sample's arithmetic never depends on the batch it rides in
// (docs/cpu.md). Activations stay NCHW in q8; each sample is reordered to channels-last, where
// oneDNN's fastest kernels run, and back, while it is still in cache.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/ir/tensor.h"
#include "engine/ops/window.h"

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
  // y[s] = conv(x[s]) for each of `samples` NCHW samples, then the epilogue (z: NCHW like y, read
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
