// One node's output types and shapes by ONNX's own shape inference: the inference function of the
// op's schema (at the model's opset), given the inputs' types and shapes and the values of inputs
// known before running (constants, shapes computed from shapes). What `q8 build` sizes a plan's
// values from without running the model.
#pragma once

#include <optional>
#include <vector>

#include "engine/ir/node.h"
#include "engine/ir/tensor.h"

namespace q8 {

// Per output: its type and shape, or nullopt where the schema cannot tell (an op of another
// domain, a shape that depends on data, an output type ONNX leaves open, an op with subgraphs). inputs[i] is Undefined
// for an absent input; values[i] is the input's value when known, else nullptr. An Error when
// the inputs break the op's rules (ONNX's message, as the executor would meet them).
std::vector<std::optional<TensorDesc>> infer_with_schema(const Node& node, int64_t opset, const std::vector<TensorDesc>& inputs,
                                                         const std::vector<const Tensor*>& values);

}  // namespace q8
