// A model's graph: typed inputs and outputs, initializers and nodes in topological order.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/node.h"
#include "engine/ir/tensor.h"

namespace q8 {

// One dimension of a declared shape: a size, a symbol ("batch"), or unknown.
struct Dim {
  int64_t value = -1;   // >= 0 when known
  std::string symbol;   // the dim_param, when the size is symbolic

  bool known() const { return value >= 0; }
};

struct ValueInfo {
  std::string name;
  DType dtype = DType::Undefined;
  std::optional<std::vector<Dim>> shape;  // nullopt: rank unknown

  std::string shape_string() const;  // "batch x 3 x 224 x 224", "?" when unknown
};

struct OpsetImport {
  std::string domain;
  int64_t version = 0;
};

struct Graph {
  std::string name;
  std::vector<ValueInfo> inputs;    // runtime inputs (initializers excluded)
  std::vector<ValueInfo> outputs;
  std::vector<ValueInfo> value_info;
  std::map<std::string, Tensor> initializers;
  std::vector<Node> nodes;
  // A subgraph's last outer_inputs inputs are the values it reads from the graphs around it
  // (untyped; the node holding it passes them: Node::captures). 0 for a model's graph.
  size_t outer_inputs = 0;
  // What the import changed to run the model (a float16 model computed as float32), for the
  // commands to report; "" when nothing.
  std::string import_note;

  // Model-level fields, kept for export.
  int64_t ir_version = 8;
  std::vector<OpsetImport> opsets;
  std::string producer_name;
  std::string producer_version;
  std::map<std::string, std::string> metadata;

  // Version of the default ("" or "ai.onnx") domain, 0 if absent.
  int64_t opset() const;
  const ValueInfo* find_input(const std::string& name) const;
  // What inputs, outputs or value_info declare about value (its type, maybe its shape), or nullptr.
  const ValueInfo* declared(const std::string& value) const;
  // The value of an initializer or of a Constant node's output (the importer gives every
  // Constant a 'value' tensor), else nullptr: the one answer to "is this value constant".
  const Tensor* constant(const std::string& value) const;
};

}  // namespace q8
