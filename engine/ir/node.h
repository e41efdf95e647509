// One ONNX node: an op type, named inputs and outputs, and attributes.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/attribute.h"

namespace q8 {

// The domain of the fused integer ops a lowered plan holds (docs/plan.md).
inline constexpr const char* kInt8Domain = "q8";

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;                // "" for the default ONNX domain
  std::vector<std::string> inputs;   // "" marks an absent optional input
  std::vector<std::string> outputs;
  std::map<std::string, Attribute> attributes;
  // For a node with subgraphs: the outer values they read, as the subgraphs name them. The last
  // captures.size() inputs carry those values (not ONNX inputs: export drops them, renaming the
  // subgraphs' references where an input was renamed), so that every pass sees the node read them.
  std::vector<std::string> captures;

  bool has(const std::string& attr) const { return attributes.count(attr) != 0; }
  // Typed getters: the default when absent; an Error naming the attribute when the kind is wrong.
  int64_t attr_int(const std::string& attr, int64_t fallback) const;
  float attr_float(const std::string& attr, float fallback) const;
  std::string attr_string(const std::string& attr, const std::string& fallback) const;
  std::vector<int64_t> attr_ints(const std::string& attr, std::vector<int64_t> fallback = {}) const;
  std::vector<float> attr_floats(const std::string& attr, std::vector<float> fallback = {}) const;
  const Tensor* attr_tensor(const std::string& attr) const;
  const Graph* attr_graph(const std::string& attr) const;  // nullptr when absent
  bool has_subgraphs() const;
  // The inputs ONNX gives the node (without the captured outer values).
  size_t onnx_inputs() const { return inputs.size() - captures.size(); }

  // "Conv 'conv1'" — how errors name a node.
  std::string describe() const;
  // Whether input i is present (exists and is not "").
  bool has_input(size_t i) const { return i < inputs.size() && !inputs[i].empty(); }
};

}  // namespace q8
