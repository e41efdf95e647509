// The window walk shared by MaxPool and AveragePool.
#pragma once

#include <functional>

#include "engine/ops/conv_common.h"
#include "engine/ops/op.h"

namespace q8 {

struct PoolShape {
  ResolvedWindow window;
  Dims in_spatial;
  Dims out_dims;  // [N, C, out…]
};

// Resolves a pooling window over X ([N, C, spatial…]); kernel_shape is required.
PoolShape resolve_pool(const Window& w, const Tensor& x, const std::string& name);

// Number of window positions of output o that lie inside the input extended by its pads
// (what count_include_pad divides by).
std::vector<int64_t> padded_window_counts(const ResolvedWindow& w, const Dims& in_spatial);

}  // namespace q8
