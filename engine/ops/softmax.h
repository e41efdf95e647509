// Softmax's rows: the input seen as outer × len × inner, each of the outer · inner rows len
// values inner apart. Opset >= 13: along one axis; opset < 13: over the input coerced to 2-D at
// axis (all dims from axis).
#pragma once

#include <cstdint>
#include <string>

#include "engine/ir/tensor.h"
#include "engine/ops/op.h"

namespace q8 {

struct SoftmaxRows {
  int64_t outer = 1, len = 1, inner = 1;
};

// The default axis and the form by opset, from the node.
struct SoftmaxAxis {
  int64_t axis;
  bool coerce_2d;
};
SoftmaxAxis softmax_axis(const Node& node, int64_t opset);

// Error when axis is out of range for dims.
SoftmaxRows softmax_rows(const Dims& dims, const SoftmaxAxis& a);

}  // namespace q8
