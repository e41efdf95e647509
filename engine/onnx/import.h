// Loading ONNX models into q8's IR.
#pragma once

#include <string>

#include "engine/ir/graph.h"

namespace q8 {

// The newest default-domain opset q8 accepts.
inline constexpr int64_t kMaxOpset = 22;
// The newest default-domain opset Debian's libonnx knows. onnx::checker and ONNX's shape inference
// apply to a model within it (and within libonnx's IR version); a newer model is checked by
// q8's own rules (docs/ops.md, "Opsets newer than libonnx").
inline constexpr int64_t kLibOnnxOpset = 17;
// The oldest default-domain opset q8 accepts.
inline constexpr int64_t kMinOpset = 1;

// Reads path (initializers, Constant nodes and external-data files beside it) into a Graph.
// Nodes come back in topological order. Errors start with the path and name what is wrong:
// a missing or non-ONNX file, an opset outside [kMinOpset, kMaxOpset], a value nothing defines.
Graph load_model(const std::string& path);
// The same from the file's bytes, already read (external data beside path).
Graph load_model_bytes(const std::string& bytes, const std::string& path);
// The same from bytes already in memory; base_dir locates external data; model_path, when
// known, lets onnx::checker find it too.
Graph parse_model(const std::string& bytes, const std::string& base_dir, const std::string& what,
                  const std::string& model_path = "");

}  // namespace q8
