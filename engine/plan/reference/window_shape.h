// What QConv and QConvTranspose share before their loops: x int8 [N, C, spatial…] and w int8 of
// the same rank, checked, and the output shape [N, M, out…] of the resolved window.
#pragma once

#include <string>
#include <vector>

#include "engine/ops/window.h"

namespace q8 {

struct WindowShape {
  Dims in_spatial;
  ResolvedWindow window;
  Dims out;  // [N, M, spatial…]
};

// Checks inputs 0 and 1 (x and w); Error names the op.
void check_window_inputs(const std::vector<TensorDesc>& in, const std::string& name);

// x's dims channels-first: as they are, or for a node with channels_last (the layout pass's,
// [N, H, W, C]) in [N, C, H, W] order; Error naming the op where such an x is not 4-D.
Dims channels_first_input(const Dims& x, bool channels_last, const std::string& name);

// The spatial dims of x, and w's kernel dims.
inline Dims spatial_of(const Dims& dims) { return Dims(dims.begin() + 2, dims.end()); }

// in_spatial and window resolved, with m output channels over x's batch.
inline WindowShape window_shape(const Dims& x, int64_t m, ResolvedWindow window) {
  WindowShape s{spatial_of(x), std::move(window), {x[0], m}};
  s.out.insert(s.out.end(), s.window.output.begin(), s.window.output.end());
  return s;
}

}  // namespace q8
