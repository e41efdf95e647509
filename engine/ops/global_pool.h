// What GlobalAveragePool and GlobalMaxPool share: Y[n, c, 1…] = reduce(X[n, c, …]).
#pragma once

#include "engine/ops/elementwise.h"

namespace q8 {

// reduce(values, count) → the plane's result.
template <typename Reduce>
Tensor global_pool(const Inputs& in, const char* op, Reduce reduce) {
  const Tensor& x = float_input(in, 0, op, "X");
  check(x.rank() >= 2, std::string(op) + ": input needs rank >= 2, got " + dims_to_string(x.dims()));
  Dims out(x.rank(), 1);
  out[0] = x.dim(0), out[1] = x.dim(1);
  Tensor y(DType::Float32, out);
  const int64_t planes = x.dim(0) * x.dim(1), size = planes ? x.numel() / planes : 0;
  for (int64_t p = 0; p < planes; ++p) y.data<float>()[p] = reduce(x.data<float>() + p * size, size);
  return y;
}

}  // namespace q8
