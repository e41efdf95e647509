#include "engine/ops/conv_common.h"

#include "engine/cpu/parallel.h"
#include "engine/ops/elementwise.h"

#include <algorithm>
#include <cstring>
#include <memory>


namespace q8 {

ConvGeometry::ConvGeometry(const ResolvedWindow& w, const Dims& in, bool with_offsets) {
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
  two_d_ = rank == 2;
  if (two_d_) {
    h_ = in[0], w_ = in[1], oh_ = w.output[0], ow_ = w.output[1], kh_ = w.kernel[0], kw_ = w.kernel[1];
    sh_ = w.strides[0], sw_ = w.strides[1], dh_ = w.dilations[0], dw_ = w.dilations[1], ph_ = w.pad_begin[0], pw_ = w.pad_begin[1];
  }
  if (with_offsets || !two_d_) build_offsets(w, in);
}

void ConvGeometry::build_offsets(const ResolvedWindow& w, const Dims& in) {
  const size_t rank = in.size();
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

// Output columns ox in [lo, hi) whose input column ox·sw + x0 lies inside [0, w), with
// 0 <= lo <= hi <= ow: a kernel wider than the input or pads wider than the kernel leave the
// range empty or clipped, never outside the row.
std::pair<int64_t, int64_t> ConvGeometry::inside_columns(int64_t x0) const {
  const int64_t lo = std::min(ow_, x0 >= 0 ? 0 : (-x0 + sw_ - 1) / sw_);
  const int64_t hi = std::clamp<int64_t>(w_ - x0 > 0 ? (w_ - x0 + sw_ - 1) / sw_ : 0, lo, ow_);
  return {lo, hi};
}

// Caffe's im2col: row (c, ki, kj) of col holds, for every output (oy, ox), the input at
// (oy·sh − ph + ki·dh, ox·sw − pw + kj·dw), or 0 outside.
void ConvGeometry::im2col_2d(const float* image, int64_t channels, float* col, int64_t ld) const {
  for (int64_t c = 0; c < channels; ++c) {
    const float* src = image + c * h_ * w_;
    for (int64_t ki = 0; ki < kh_; ++ki)
      for (int64_t kj = 0; kj < kw_; ++kj) {
        float* dst = col + ((c * kh_ + ki) * kw_ + kj) * ld;
        // Output columns whose input column lies inside [0, w): ox in [lo, hi).
        const int64_t x0 = kj * dw_ - pw_;
        const auto [lo, hi] = inside_columns(x0);
        for (int64_t oy = 0; oy < oh_; ++oy) {
          const int64_t y = oy * sh_ - ph_ + ki * dh_;
          float* row = dst + oy * ow_;
          if (y < 0 || y >= h_) {
            std::memset(row, 0, size_t(ow_) * sizeof(float));
            continue;
          }
          const float* in_row = src + y * w_;  // input column of ox: ox·sw + x0
          for (int64_t ox = 0; ox < lo; ++ox) row[ox] = 0.0f;
          if (sw_ == 1) {
            if (hi > lo) copy_bytes(row + lo, in_row + lo + x0, size_t(hi - lo) * sizeof(float));
          } else {
            for (int64_t ox = lo; ox < hi; ++ox) row[ox] = in_row[ox * sw_ + x0];
          }
          for (int64_t ox = hi; ox < ow_; ++ox) row[ox] = 0.0f;
        }
      }
  }
}

void ConvGeometry::col2im_2d(const float* col, int64_t channels, float* image, int64_t ld) const {
  for (int64_t c = 0; c < channels; ++c) {
    float* dst = image + c * h_ * w_;
    for (int64_t ki = 0; ki < kh_; ++ki)
      for (int64_t kj = 0; kj < kw_; ++kj) {
        const float* src = col + ((c * kh_ + ki) * kw_ + kj) * ld;
        const int64_t x0 = kj * dw_ - pw_;
        const auto [lo, hi] = inside_columns(x0);
        for (int64_t oy = 0; oy < oh_; ++oy) {
          const int64_t y = oy * sh_ - ph_ + ki * dh_;
          if (y < 0 || y >= h_) continue;
          float* out_row = dst + y * w_;
          const float* row = src + oy * ow_;
          for (int64_t ox = lo; ox < hi; ++ox) out_row[ox * sw_ + x0] += row[ox];
        }
      }
  }
}

void ConvGeometry::im2col(const float* image, int64_t channels, float* col, int64_t ld) const {
  if (two_d_) return im2col_2d(image, channels, col, ld);
  for (int64_t c = 0; c < channels; ++c) {
    const float* src = image + c * in_size;
    for (int64_t ki = 0; ki < kernel_size; ++ki) {
      const int64_t* off = offsets_.data() + ki * out_size;
      float* dst = col + (c * kernel_size + ki) * ld;
      for (int64_t o = 0; o < out_size; ++o) dst[o] = off[o] >= 0 ? src[off[o]] : 0.0f;
    }
  }
}

void ConvGeometry::col2im(const float* col, int64_t channels, float* image, int64_t ld) const {
  if (two_d_) return col2im_2d(col, channels, image, ld);
  for (int64_t c = 0; c < channels; ++c) {
    float* dst = image + c * in_size;
    for (int64_t ki = 0; ki < kernel_size; ++ki) {
      const int64_t* off = offsets_.data() + ki * out_size;
      const float* src = col + (c * kernel_size + ki) * ld;
      for (int64_t o = 0; o < out_size; ++o)
        if (off[o] >= 0) dst[off[o]] += src[o];
    }
  }
}

WindowOpInputs window_op_inputs(const Inputs& in, const char* op, const std::string& name, const Window& window) {
  const Tensor& x = float_input(in, 0, op, "X");
  const Tensor& w = float_input(in, 1, op, "W");
  check(x.rank() >= 3 && w.rank() == x.rank(),
        name + ": X of shape " + dims_to_string(x.dims()) + " and W of shape " + dims_to_string(w.dims()) + " do not fit");
  WindowOpInputs r{x, w, optional_input(in, 2), Dims(x.dims().begin() + 2, x.dims().end()),
                   std::vector<int64_t>(w.dims().begin() + 2, w.dims().end())};
  if (!window.kernel.empty())
    check(window.kernel == r.kernel, name + ": kernel_shape disagrees with the weight's shape " + dims_to_string(w.dims()));
  return r;
}

void check_bias(const Tensor* bias, int64_t channels, const std::string& name) {
  if (bias)
    check(bias->dtype() == DType::Float32 && bias->numel() == channels,
          name + ": weight has " + std::to_string(channels) + " output channels but bias has " + std::to_string(bias->numel()));
}

int64_t samples_per_gemm(int64_t samples, int64_t rows, int64_t out_size) {
  constexpr int64_t kBudgetFloats = int64_t(2) << 20;  // 8 MiB of column matrix: cache-sized
  const int64_t per_sample = std::max<int64_t>(1, rows * out_size);
  return std::clamp<int64_t>(kBudgetFloats / per_sample, 1, std::max<int64_t>(samples, 1));
}

float* scratch(size_t buffer, size_t floats) {
  struct Buffer {
    std::unique_ptr<float[]> data;
    size_t size = 0;
  };
  static thread_local std::vector<Buffer> buffers;
  if (buffers.size() <= buffer) buffers.resize(buffer + 1);
  Buffer& b = buffers[buffer];
  if (b.size < floats) {
    b.data.reset(new float[floats]);
    b.size = floats;
  }
  return b.data.get();
}

void for_each_sample(int64_t n, const std::function<void(int64_t)>& fn) {
  parallel_for(n, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) fn(i);
  });
}

void add_channel_bias(float* y, const float* bias, int64_t channels, int64_t size) {
  for (int64_t c = 0; c < channels; ++c) {
    float* row = y + c * size;
    const float b = bias[c];
    for (int64_t p = 0; p < size; ++p) row[p] += b;
  }
}

}  // namespace q8
