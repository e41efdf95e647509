// The window walk shared by MaxPool and AveragePool.
#pragma once

#include <algorithm>
#include <functional>
#include <utility>

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

// Kernel taps k in [k0, k1) whose position begin + k·dilation lies inside [0, n), k0 <= k1.
inline std::pair<int64_t, int64_t> taps_inside(int64_t begin, int64_t dilation, int64_t kernel, int64_t n) {
  const int64_t k0 = std::min(kernel, begin >= 0 ? 0 : (-begin + dilation - 1) / dilation);
  const int64_t k1 = begin >= n ? 0 : std::min(kernel, (n - 1 - begin) / dilation + 1);
  return {k0, std::max(k1, k0)};
}

}  // namespace q8
