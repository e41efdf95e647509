// The reduction walk every Reduce* op shares (docs/ops.md, "Reductions").
#pragma once

#include <memory>

#include "engine/ops/op.h"

namespace q8 {

struct ReduceAttrs {
  std::optional<std::vector<int64_t>> axes;  // from the attribute; nullopt = from input 1 or all
  bool keepdims = true;
  bool noop_with_empty_axes = false;
  bool axes_from_input = false;  // opset form: axes is input 1
};

enum class ReduceKind { Sum, Mean, Max, Min, Prod, L1, L2, SumSquare, LogSum, LogSumExp };

// Reads the attributes of a Reduce* node; axes_from_input says which opset form applies.
ReduceAttrs read_reduce_attrs(const Node& node, bool axes_from_input);
// Reduces X (float32, float16 computed in float32, int32 or int64; Max and Min also int8 and
// uint8) over the axes the attributes and inputs name, in X's type.
Tensor reduce(const Inputs& in, const ReduceAttrs& attrs, ReduceKind kind, const char* op);

// The op for one kind, axes read as an input from `axes_input_opset` on.
std::unique_ptr<Op> make_reduce(const Node& node, const OpContext& ctx, ReduceKind kind, const char* name, int64_t axes_input_opset);

}  // namespace q8
