// The reduction walk shared by ReduceMean, ReduceSum and ReduceMax.
#pragma once

#include <functional>

#include "engine/ops/op.h"

namespace q8 {

struct ReduceAttrs {
  std::optional<std::vector<int64_t>> axes;  // from the attribute; nullopt = from input 1 or all
  bool keepdims = true;
  bool noop_with_empty_axes = false;
  bool axes_from_input = false;  // opset form: axes is input 1
};

enum class ReduceKind { Sum, Mean, Max };

// Reads the attributes of a Reduce* node; axes_from_input says which opset form applies.
ReduceAttrs read_reduce_attrs(const Node& node, bool axes_from_input);
// Reduces float32 X over the axes the attributes and inputs name.
Tensor reduce(const Inputs& in, const ReduceAttrs& attrs, ReduceKind kind, const char* op);

}  // namespace q8
