// What Conv and ConvTranspose share: the im2col/col2im index maps of a resolved window, the
// per-sample parallel loop, and the per-channel bias.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "engine/ops/window.h"

namespace q8 {

// Maps between a [C, in…] image and its [C·K, out…] column matrix, K = Π kernel, for any rank.
class ConvGeometry {
 public:
  ConvGeometry(const ResolvedWindow& w, const Dims& in_spatial);

  int64_t in_size = 1;      // Π input spatial
  int64_t out_size = 1;     // Π output spatial
  int64_t kernel_size = 1;  // Π kernel

  // Offset into the image of kernel position k at output position o, or -1 in padding.
  int64_t offset(int64_t k, int64_t o) const { return offsets_[size_t(k * out_size + o)]; }
  // 1×1 kernel, stride 1, no padding: the column matrix is the image itself.
  bool is_pointwise() const;
  // col[(c·K + k), o] = image[c, o·s − pb + k·d], 0 outside.
  void im2col(const float* image, int64_t channels, float* col) const;
  // image[c, o·s − pb + k·d] += col[(c·K + k), o] for positions inside image (image pre-zeroed).
  // Here "image" is the larger tensor (a ConvTranspose output), col is over its input grid.
  void col2im(const float* col, int64_t channels, float* image) const;

 private:
  // For each kernel offset k and output position o: the input offset, or -1 when in padding.
  std::vector<int64_t> offsets_;  // [K × out_size]
  bool pointwise_ = false;
};

// Runs fn(sample, scratch) for every sample in [0, n): in parallel with single-threaded BLAS
// when there are enough samples to busy every core, else in order with threaded BLAS.
void run_per_sample(int64_t n, const std::function<void(int64_t, std::vector<float>&)>& fn);

// y[c, p] += bias[c] for c < channels, p < size.
void add_channel_bias(float* y, const float* bias, int64_t channels, int64_t size);

}  // namespace q8
