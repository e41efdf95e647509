// Conversion between ONNX TensorProto and q8 tensors.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

#include "engine/ir/tensor.h"

namespace q8 {

// The q8 dtype of an ONNX TensorProto data type; an Error names unsupported types.
DType dtype_from_onnx(int onnx_type, const std::string& what);
int dtype_to_onnx(DType dtype);
std::string onnx_type_name(int onnx_type);  // "FLOAT", "DOUBLE", ...

// Reads raw_data, typed fields or external data (located relative to base_dir).
Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& base_dir);
// Fills proto with raw_data; the name is left to the caller.
void tensor_to_proto(const Tensor& tensor, onnx::TensorProto& proto);

// Reads a serialized TensorProto file (.pb), as ONNX's test data stores inputs and outputs.
Tensor read_tensor_pb(const std::string& path, std::string* name = nullptr);

}  // namespace q8
