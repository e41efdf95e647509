// What Conv and ConvTranspose share: the im2col/col2im index maps of a resolved window, the
// per-sample parallel loop, and the per-channel bias.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "engine/ops/op.h"
#include "engine/ops/window.h"

namespace q8 {

// Maps between a [C, in…] image and its [C·K, out…] column matrix, K = Π kernel, for any rank.
class ConvGeometry {
 public:
  // with_offsets: also build the offset table (pools read it through offset()).
  ConvGeometry(const ResolvedWindow& w, const Dims& in_spatial, bool with_offsets = false);

  int64_t in_size = 1;      // Π input spatial
  int64_t out_size = 1;     // Π output spatial
  int64_t kernel_size = 1;  // Π kernel

  // Offset into the image of kernel position k at output position o, or -1 in padding.
  int64_t offset(int64_t k, int64_t o) const { return offsets_[size_t(k * out_size + o)]; }
  // True for 2-D windows, which im2col/col2im walk directly (no offset table).
  bool is_2d() const { return two_d_; }
  // 1×1 kernel, stride 1, no padding: the column matrix is the image itself.
  bool is_pointwise() const;
  // col[(c·K + k), o] = image[c, o·s − pb + k·d], 0 outside; ld is col's row stride
  // (out_size, or more when several samples share one column matrix).
  void im2col(const float* image, int64_t channels, float* col, int64_t ld) const;
  // image[c, o·s − pb + k·d] += col[(c·K + k), o] for positions inside image (image pre-zeroed).
  // Here "image" is the larger tensor (a ConvTranspose output), col is over its input grid.
  void col2im(const float* col, int64_t channels, float* image, int64_t ld) const;

 private:
  // For each kernel offset k and output position o: the input offset, or -1 when in padding.
  void build_offsets(const ResolvedWindow& w, const Dims& in);
  void im2col_2d(const float* image, int64_t channels, float* col, int64_t ld) const;
  void col2im_2d(const float* col, int64_t channels, float* image, int64_t ld) const;
  std::pair<int64_t, int64_t> inside_columns(int64_t x0) const;

  std::vector<int64_t> offsets_;  // [K × out_size]; built for ranks other than 2 and for pools
  bool pointwise_ = false;
  bool two_d_ = false;
  // 2-D geometry: input h×w, output oh×ow, kernel kh×kw, strides, dilations, begin pads.
  int64_t h_ = 0, w_ = 0, oh_ = 0, ow_ = 0, kh_ = 0, kw_ = 0, sh_ = 0, sw_ = 0, dh_ = 0, dw_ = 0, ph_ = 0, pw_ = 0;
};

// The inputs Conv and ConvTranspose share, checked: X [N, C, spatial…], W of the same rank
// (its kernel agreeing with kernel_shape when given), an optional float32 bias B of `channels`
// values. Errors name the node.
struct WindowOpInputs {
  const Tensor& x;
  const Tensor& w;
  const Tensor* bias;
  Dims in_spatial;
  std::vector<int64_t> kernel;
};
WindowOpInputs window_op_inputs(const Inputs& in, const char* op, const std::string& name, const Window& window);
void check_bias(const Tensor* bias, int64_t channels, const std::string& name);

// How many samples share one column matrix of rows × out_size floats: as many as fit a budget
// that keeps the matrix cache-friendly yet gives SGEMM one wide multiplication (wide GEMMs thread
// well; several narrow ones run in parallel do not on small machines).
int64_t samples_per_gemm(int64_t samples, int64_t rows, int64_t out_size);

// Reusable scratch memory: grows, never shrinks, is not zero-filled. Each thread has its own
// (scratch(k) for a few independent buffers k), so ops on one thread reuse one allocation.
float* scratch(size_t buffer, size_t floats);

// Runs fn(i) for i in [0, n) on all cores (each call must touch disjoint memory).
void for_each_sample(int64_t n, const std::function<void(int64_t)>& fn);

// y[c, p] += bias[c] for c < channels, p < size.
void add_channel_bias(float* y, const float* bias, int64_t channels, int64_t size);

}  // namespace q8
