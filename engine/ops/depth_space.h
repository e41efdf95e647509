// DepthToSpace and SpaceToDepth (NCHW, blocksize b): each moves values between the channels and
// b × b blocks of the plane. DepthToSpace's DCR mode (the default) reads channel
// (by · b + bx) · C' + c, CRD mode c · b² + by · b + bx; SpaceToDepth writes DCR's order.
#pragma once

#include "engine/ir/tensor.h"

namespace q8 {

// y[n, c, h·b + by, w·b + bx] = x[n, depth(c, by, bx), h, w] with depth as the mode orders it
// (to_space), or the inverse (x and y swapped: to_space false).
Tensor move_depth(const Tensor& x, int64_t block, bool to_space, bool crd, const char* op);

}  // namespace q8
