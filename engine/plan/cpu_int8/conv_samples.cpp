#include "engine/plan/cpu_int8/conv_samples.h"

#include <algorithm>

#include "engine/cpu/parallel.h"
#include "engine/cpu/transpose.h"
#include "engine/cpu/threads.h"
#include "engine/plan/cpu_int8/band_size.h"
#include "engine/plan/cpu_int8/scratch.h"

namespace q8 {

const Int8ConvPrimitive* conv_primitive(Int8ConvCache& cache, const Int8ConvShape& shape, const int8_t* w,
                                        const Int8Requantization* requantization) {
  return cache.get(shape, [&] {
    std::unique_ptr<Int8ConvPrimitive> conv = Int8ConvPrimitive::create(shape, requantization);
    if (conv) conv->set_weights(w);
    return conv;
  });
}

namespace {

// Bands pay where the sums' round trip through memory outweighs the products: at most this many
// products an output (C/g · k_h · k_w), and at least kBandPositions positions a band, so a band's
// primitive still has the rows to amortize its weights over.
constexpr int64_t kBandProducts = 256;
constexpr int64_t kBandPositions = 128;
// A small convolution (at most kSpreadBandMacs products a sample) run with fewer samples than
// threads, a sample on every thread, is cut into a band a thread of at least
// kSpreadBandPositions positions, also where its sums fit kBandAccBytes: oneDNN's primitives made
// for every thread ran MobileNetV2's 14 × 14 and 7 × 7 layers (10–20 M products) slower on two
// threads than on one (AMX). Larger ones keep oneDNN's own split (ResNet-50's, 51–115 M, ran
// about 3 % slower as a whole in bands; each band reads all of the weights).
constexpr int64_t kSpreadBandMacs = int64_t(32) << 20;
constexpr int64_t kSpreadBandPositions = 16;

}  // namespace

std::vector<ConvBand> conv_bands(Int8ConvCache& cache, const Int8ConvShape& shape, const int8_t* w, int64_t samples,
                                 const Int8Requantization* requantization) {
  if (shape.transposed || shape.in_spatial.size() != 2) return {};
  const int64_t oh = shape.out_spatial[0], ow = shape.out_spatial[1], h = shape.in_spatial[0];
  const int64_t row_bytes = ow * shape.channels_out * int64_t(sizeof(int32_t));
  const int64_t products = shape.channels_in / shape.group * numel(shape.kernel);
  const int64_t threads = compute_threads();
  const bool spread = threads > 1 && samples < threads && oh * ow * shape.channels_out * products <= kSpreadBandMacs;
  const bool fits = oh * row_bytes <= kBandAccBytes;
  if (oh < 2 || (fits && !spread) || (!fits && products > kBandProducts) || (requantization && !spread)) return {};
  // Rows a band: few enough that every thread has a band, and, where the epilogue reads the sums
  // back, as many as fit kBandAccBytes. A requantizing primitive writes int8 and keeps no sums:
  // one band a thread.
  const int64_t per_thread = (oh + threads - 1) / threads;
  const int64_t rows = requantization ? per_thread : std::max<int64_t>(1, std::min(kBandAccBytes / row_bytes, per_thread));
  if (rows * ow < (spread ? kSpreadBandPositions : kBandPositions)) return {};
  const int64_t s = shape.strides[0], span = (shape.kernel[0] - 1) * shape.dilations[0] + 1, top = shape.pad_begin[0];
  std::vector<ConvBand> bands;
  for (int64_t o0 = 0; o0 < oh; o0 += rows) {
    const int64_t o1 = std::min(oh, o0 + rows);
    // Input rows [a, b) the band's windows cover; those outside [0, h) are its padding.
    const int64_t a = o0 * s - top, b = (o1 - 1) * s - top + span;
    const int64_t in0 = std::max<int64_t>(a, 0), in1 = std::min(b, h);
    if (in1 <= in0) return {};  // a band wholly in the padding: one primitive for the sample
    Int8ConvShape band = shape;
    band.in_spatial[0] = in1 - in0, band.out_spatial[0] = o1 - o0;
    band.pad_begin[0] = in0 - a, band.pad_end[0] = b - in1;
    const Int8ConvPrimitive* conv = conv_primitive(cache, band, w, requantization);
    if (!conv) return {};
    bands.push_back({o0, o1 - o0, in0, conv});
  }
  return bands;
}

namespace {

// Positions per epilogue task, and tiles per transpose task: about 16 KB of output each, so a
// small layer does not pay a team's barrier for microseconds of work.
constexpr int64_t kValuesPerTask = 16384;

// One sample: x in, y out, both channels-first, or both channels-last (as the residual) with
// channels_last.
void run_sample(const Int8ConvLayout& layout, const int8_t* xs, const Epilogue& epilogue, const int8_t* residual, std::byte* ys,
                bool channels_last) {
  const Int8ConvShape& shape = layout.shape;
  const std::vector<ConvBand>& bands = layout.bands;
  const int64_t c = shape.channels_in, m = shape.channels_out;
  const int64_t in_positions = numel(shape.in_spatial), positions = numel(shape.out_spatial);
  const int bytes = epilogue.int8_out() ? 1 : 4;
  CpuInt8Scratch& s = cpu_int8_scratch();  // this thread's
  int8_t* x_last = c > 1 && !channels_last ? CpuInt8Scratch::sized(s.x_last, c * in_positions) : nullptr;
  std::byte* y_last = channels_last ? ys : CpuInt8Scratch::sized(s.y_last, positions * m * bytes);
  const int8_t* residual_last = residual;
  if (residual && !channels_last) {
    int8_t* copy = CpuInt8Scratch::sized(s.residual_last, positions * m);
    channels_first_to_last(residual, copy, positions, m);
    residual_last = copy;
  }
  if (x_last) channels_first_to_last(xs, x_last, in_positions, c);
  const int8_t* x_in = x_last ? x_last : xs;
  if (layout.depthwise && layout.requantized) {
    // Row by row, requantized in the kernel; a rounded residual sum over each row at once.
    const DepthwiseInt8Conv& dw = *layout.depthwise;
    const int64_t row = dw.out_cols() * m;
    int8_t* y8 = reinterpret_cast<int8_t*>(y_last);
    const RoundedResidual* residual_sum = layout.rounded_residual.get();
    parallel_for(dw.out_rows(), std::max<int64_t>(1, kValuesPerTask / row), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        dw.run_row_requantized(x_in, r, y8 + r * row);
        if (residual_sum) residual_sum->apply(y8 + r * row, residual_last + r * row, row);
      }
    });
  } else if (layout.depthwise) {
    // Row by row, each row's sums then at once its epilogue, from L1.
    const DepthwiseInt8Conv& dw = *layout.depthwise;
    const int64_t ow = dw.out_cols();
    parallel_for(dw.out_rows(), std::max<int64_t>(1, kValuesPerTask / (ow * m)), [&](int64_t b, int64_t e) {
      int32_t* acc = CpuInt8Scratch::sized(cpu_int8_scratch().acc, ow * m);  // the running thread's
      for (int64_t r = b; r < e; ++r) {
        dw.run_row(x_in, r, acc);
        epilogue.store_positions(y_last + r * ow * m * bytes, acc, residual_last ? residual_last + r * ow * m : nullptr, ow, m);
      }
    });
  } else if (layout.non_overlapping) {
    // A band of input rows through one kernel row at a time: each row of its sums is a whole
    // output row (non_overlapping_transpose.h), its epilogue at once.
    const NonOverlappingTranspose& t = *layout.non_overlapping;
    const int64_t ow = shape.out_spatial[1], sh = t.kernel_rows();
    parallel_for(t.bands() * sh, 1, [&](int64_t b, int64_t e) {
      int32_t* acc = CpuInt8Scratch::sized(cpu_int8_scratch().acc, t.most_rows() * ow * m);  // the running thread's
      for (int64_t task = b; task < e; ++task) {
        const int64_t band = task / sh, r = task % sh;
        t.run(x_in, band, r, acc);
        for (int64_t i = 0; i < t.rows(band); ++i) {
          const int64_t p0 = ((t.first_row(band) + i) * sh + r) * ow;
          epilogue.store_positions(y_last + p0 * m * bytes, acc + i * ow * m, residual_last ? residual_last + p0 * m : nullptr, ow, m);
        }
      }
    });
  } else if (layout.requantized) {
    // oneDNN writes the int8 output itself, band by band (each on one thread) or whole.
    // A rounded residual sum follows on the same thread, from cache.
    int8_t* y8 = reinterpret_cast<int8_t*>(y_last);
    const RoundedResidual* residual_sum = layout.rounded_residual.get();
    if (bands.empty()) {
      layout.conv->run_requantized(x_in, y8);
      if (residual_sum)
        parallel_for(positions * m, kValuesPerTask, [&](int64_t b, int64_t e) { residual_sum->apply(y8 + b, residual_last + b, e - b); });
    } else {
      const int64_t in_row = shape.in_spatial[1] * c, out_row = shape.out_spatial[1];
      parallel_for(int64_t(bands.size()), 1, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          const ConvBand& band = bands[size_t(i)];
          const int64_t at = band.out_row * out_row * m;
          band.conv->run_requantized(x_in + band.in_row * in_row, y8 + at);
          if (residual_sum) residual_sum->apply(y8 + at, residual_last + at, band.out_rows * out_row * m);
        }
      });
    }
  } else if (!bands.empty()) {
    // Band by band, each on one thread: its sums, then at once its epilogue (the same integers
    // and the same per-position epilogue as the whole sample's, so the same bytes).
    const int64_t in_row = shape.in_spatial[1] * c, out_row = shape.out_spatial[1];
    int64_t most = 0;
    for (const ConvBand& band : bands) most = std::max(most, band.out_rows * out_row * m);
    parallel_for(int64_t(bands.size()), 1, [&](int64_t b, int64_t e) {
      int32_t* acc = CpuInt8Scratch::sized(cpu_int8_scratch().acc, most);  // the running thread's
      for (int64_t i = b; i < e; ++i) {
        const ConvBand& band = bands[size_t(i)];
        const int64_t p0 = band.out_row * out_row;
        band.conv->run(x_in + band.in_row * in_row, acc);
        epilogue.store_positions(y_last + p0 * m * bytes, acc, residual_last ? residual_last + p0 * m : nullptr, band.out_rows * out_row, m);
      }
    });
  } else {
    int32_t* acc = CpuInt8Scratch::sized(s.acc, positions * m);
    layout.conv->run(x_in, acc);
    parallel_for(positions, std::max<int64_t>(1, kValuesPerTask / m), [&](int64_t b, int64_t e) {
      epilogue.store_positions(y_last + b * m * bytes, acc + b * m, residual_last ? residual_last + b * m : nullptr, e - b, m);
    });
  }
  if (!channels_last) channels_last_to_first(y_last, ys, positions, m, bytes);
}

}  // namespace

void run_conv_samples(const Int8ConvLayout& layout, const Tensor& x, const Epilogue& epilogue, Tensor& y, bool channels_last) {
  const Int8ConvShape& shape = layout.shape;
  const int64_t n = x.dim(0), in_size = shape.channels_in * numel(shape.in_spatial);
  const int64_t out_size = shape.channels_out * numel(shape.out_spatial);
  const int bytes = epilogue.int8_out() ? 1 : 4;
  const auto one = [&](int64_t i) {
    run_sample(layout, x.data<int8_t>() + i * in_size, epilogue, epilogue.has_residual() ? epilogue.residual() + i * out_size : nullptr,
               y.raw() + i * out_size * bytes, channels_last);
  };
  // Enough samples for every thread: a sample per thread, everything inside it on that thread
  // (oneDNN and the loops run serially inside a parallel loop). Fewer: one sample at a time on
  // every thread. Integer sums make both give the same bytes.
  if (n > 1 && n >= compute_threads()) {
    parallel_for(n, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) one(i);
    });
    return;
  }
  for (int64_t i = 0; i < n; ++i) one(i);
}

}  // namespace q8
