// Layout of per-tensor and per-axis quantization parameters (QuantizeLinear, DequantizeLinear).
#pragma once

#include <algorithm>
#include <string>

#include "engine/ir/tensor.h"
#include "engine/ops/broadcast.h"

namespace q8 {

// X viewed as [outer, channels, inner] around the quantization axis; channels = 1 per-tensor.
struct QuantLayout {
  int64_t outer = 1, channels = 1, inner = 1;
};

// Checks that scale (and zero_point, when given) are scalars or 1-D of X's size along axis.
QuantLayout quant_layout(const Tensor& x, const Tensor& scale, const Tensor* zero_point, int64_t axis, const char* op);

// f(channel, begin, end) over X's elements as flat index spans, each inside one row of `inner`
// values sharing a channel, split between the compute threads by element count, so a
// per-tensor scale (one row of every value) still uses every thread.
template <typename F>
void for_each_channel_span(const QuantLayout& l, F f) {
  parallel_for(l.outer * l.channels * l.inner, kParallelGrain, [&](int64_t b, int64_t e) {
    while (b < e) {
      const int64_t row = b / l.inner, end = std::min(e, (row + 1) * l.inner);
      f(row % l.channels, b, end);
      b = end;
    }
  });
}

}  // namespace q8
