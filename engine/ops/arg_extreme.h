// ArgMax and ArgMin: the index (int64) of the largest or smallest value along axis, the first of
// equal values or with select_last_index the last; keepdims keeps the axis as size 1. A NaN wins
// (as numpy's argmax).
#pragma once

#include <memory>

#include "engine/ops/op.h"

namespace q8 {

std::unique_ptr<Op> make_arg_extreme(const Node& node, bool max, const char* name);

}  // namespace q8
