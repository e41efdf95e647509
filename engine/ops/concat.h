// Concat's output shape and its checks, shared by the CPU op and the OpenCL one.
#pragma once

#include <vector>

#include "engine/ops/op.h"

namespace q8 {

// The output of joining inputs of these types and dims along axis (negative from the end);
// Error naming the input that differs from input 0 in type, rank or a dim off the axis.
TensorDesc concat_output(const std::vector<TensorDesc>& inputs, int64_t axis);

// The output viewed around axis as [outer, inner] rows, inner = dims[axis] · inner_rest: input i,
// viewed as [outer, dims_i[axis] · inner_rest], fills its columns from the sum of the inputs'
// widths before it.
struct ConcatRows {
  int64_t outer = 1, inner_rest = 1, inner = 0;
};
ConcatRows concat_rows(const Dims& out, size_t axis);

}  // namespace q8
