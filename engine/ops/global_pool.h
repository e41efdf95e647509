// What GlobalAveragePool and GlobalMaxPool share: Y[n, c, 1…] = reduce(X[n, c, …]).
#pragma once

#include <algorithm>

#include "engine/cpu/parallel.h"
#include "engine/ops/elementwise.h"

namespace q8 {

// reduce(values, count) → the plane's result. Planes run in parallel; each is reduced whole by
// one thread, so the split never enters a result.
template <typename Reduce>
Tensor global_pool(const Inputs& in, const char* op, Reduce reduce) {
  const Tensor& x = float_input(in, 0, op, "X");
  check(x.rank() >= 2, std::string(op) + ": input needs rank >= 2, got " + dims_to_string(x.dims()));
  Dims out(x.rank(), 1);
  out[0] = x.dim(0), out[1] = x.dim(1);
  Tensor y(DType::Float32, out);
  const int64_t planes = x.dim(0) * x.dim(1), size = planes ? x.numel() / planes : 0;
  const float* px = x.data<float>();
  float* py = y.data<float>();
  parallel_for(planes, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, size)), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) py[p] = reduce(px + p * size, size);
  });
  return y;
}

}  // namespace q8
