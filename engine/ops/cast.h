// Cast's conversion (cast.cpp), shared with CastLike.
#pragma once

#include "engine/ops/op.h"

namespace q8 {

// x converted to type `to` by ONNX Cast's rules (docs/ops.md, "Casts"); x itself when it has that type.
Tensor cast_tensor(const Tensor& x, DType to);

}  // namespace q8
