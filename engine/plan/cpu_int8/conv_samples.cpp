#include "engine/plan/cpu_int8/conv_samples.h"

#include <algorithm>

#include "engine/cpu/parallel.h"
#include "engine/cpu/threads.h"
#include "engine/plan/cpu_int8/scratch.h"

namespace q8 {

const Int8ConvPrimitive* conv_primitive(Int8ConvCache& cache, const Int8ConvShape& shape, const int8_t* w) {
  return cache.get(shape, [&] {
    std::unique_ptr<Int8ConvPrimitive> conv = Int8ConvPrimitive::create(shape);
    if (conv) conv->set_weights(w);
    return conv;
  });
}

namespace {

// Positions per epilogue task, and tiles per transpose task: about 16 KB of output each, so a
// small layer does not pay a team's barrier for microseconds of work.
constexpr int64_t kValuesPerTask = 16384;

// One sample: x in, y out, both channels-first, or both channels-last (as the residual) with
// channels_last.
void run_sample(const Int8ConvPrimitive& conv, const Int8ConvShape& shape, const int8_t* xs, const Epilogue& epilogue, const int8_t* residual,
                std::byte* ys, bool channels_last) {
  const int64_t c = shape.channels_in, m = shape.channels_out;
  const int64_t in_positions = numel(shape.in_spatial), positions = numel(shape.out_spatial);
  const int bytes = epilogue.int8_out() ? 1 : 4;
  CpuInt8Scratch& s = cpu_int8_scratch();  // this thread's
  int8_t* x_last = c > 1 && !channels_last ? CpuInt8Scratch::sized(s.x_last, c * in_positions) : nullptr;
  int32_t* acc = CpuInt8Scratch::sized(s.acc, positions * m);
  std::byte* y_last = channels_last ? ys : CpuInt8Scratch::sized(s.y_last, positions * m * bytes);
  const int8_t* residual_last = residual;
  if (residual && !channels_last) {
    int8_t* copy = CpuInt8Scratch::sized(s.residual_last, positions * m);
    channels_first_to_last(residual, copy, positions, m);
    residual_last = copy;
  }
  if (x_last) channels_first_to_last(xs, x_last, in_positions, c);
  conv.run(x_last ? x_last : xs, acc);
  parallel_for(positions, std::max<int64_t>(1, kValuesPerTask / m), [&](int64_t b, int64_t e) {
    epilogue.store_positions(y_last + b * m * bytes, acc + b * m, residual_last ? residual_last + b * m : nullptr, e - b, m);
  });
  if (!channels_last) channels_last_to_first(y_last, ys, positions, m, bytes);
}

}  // namespace

void run_conv_samples(const Int8ConvPrimitive& conv, const Int8ConvShape& shape, const Tensor& x, const Epilogue& epilogue, Tensor& y,
                      bool channels_last) {
  const int64_t n = x.dim(0), in_size = shape.channels_in * numel(shape.in_spatial);
  const int64_t out_size = shape.channels_out * numel(shape.out_spatial);
  const int bytes = epilogue.int8_out() ? 1 : 4;
  const auto one = [&](int64_t i) {
    run_sample(conv, shape, x.data<int8_t>() + i * in_size, epilogue, epilogue.has_residual() ? epilogue.residual() + i * out_size : nullptr,
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
