// What the ops that index by values share (GatherElements, GatherND, ScatterElements, ScatterND,
// OneHot, TopK, ArgMax…): an index checked against its axis, the size of a run of axes, and
// row-major strides (strided_copy.h's dense_strides).
#pragma once

#include <string>
#include <vector>

#include "engine/ir/tensor.h"
#include "engine/ops/strided_copy.h"

namespace q8 {

// Index i of an axis of n elements, negative counting from the end; an Error naming op, the
// index and the axis when it lies outside [−n, n).
inline int64_t checked_index(int64_t i, int64_t n, const char* op, size_t axis) {
  check(i >= -n && i < n, std::string(op) + ": index " + std::to_string(i) + " is out of range for axis " +
                              std::to_string(axis) + " of size " + std::to_string(n));
  return i < 0 ? i + n : i;
}

// The element count of dims[from, to).
inline int64_t span_size(const Dims& dims, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t d = from; d < to && d < dims.size(); ++d) n *= dims[d];
  return n;
}

}  // namespace q8
