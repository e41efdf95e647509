// Conversion between ONNX TensorProto and q8 tensors.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

#include "engine/ir/tensor.h"

namespace q8 {

// Reads raw_data, typed fields or external data (located relative to base_dir).
Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& base_dir);
// Fills proto with raw_data; the name is left to the caller.
void tensor_to_proto(const Tensor& tensor, onnx::TensorProto& proto);

// Reads a serialized TensorProto file (.pb), as ONNX's test data stores inputs and outputs.
Tensor read_tensor_pb(const std::string& path, std::string* name = nullptr);

}  // namespace q8
