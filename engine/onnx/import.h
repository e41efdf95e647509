// Loading ONNX models into q8's IR.
#pragma once

#include <string>

#include "engine/ir/graph.h"

namespace q8 {

// The newest default-domain opset q8 accepts.
inline constexpr int64_t kMaxOpset = 17;
// The oldest default-domain opset q8 accepts.
inline constexpr int64_t kMinOpset = 1;

// Reads path (initializers, Constant nodes and external-data files beside it) into a Graph.
// Nodes come back in topological order. Errors start with the path and name what is wrong:
// a missing or non-ONNX file, an opset outside [kMinOpset, kMaxOpset], a value nothing defines.
Graph load_model(const std::string& path);
// The same from bytes already in memory; base_dir locates external data; model_path, when
// known, lets onnx::checker find it too.
Graph parse_model(const std::string& bytes, const std::string& base_dir, const std::string& what,
                  const std::string& model_path = "");

}  // namespace q8
