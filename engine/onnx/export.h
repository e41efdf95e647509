// Writing q8's IR back as ONNX.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

#include "engine/ir/graph.h"

namespace q8 {

onnx::ModelProto to_model_proto(const Graph& graph);
// One node as ONNX writes it (name, op, domain, inputs, outputs, attributes).
void node_to_proto(const Node& node, onnx::NodeProto& proto);
// Writes graph as an ONNX file, atomically, after onnx::checker accepts it.
void save_model(const Graph& graph, const std::string& path);
// The bytes save_model writes (after the same onnx::checker pass; Error names `path`).
std::string serialize_model(const Graph& graph, const std::string& path);

}  // namespace q8
