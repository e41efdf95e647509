#include "engine/ir/node.h"

namespace q8 {

namespace {
const Attribute* find(const Node& node, const std::string& attr, Attribute::Kind kind, const char* what) {
  auto it = node.attributes.find(attr);
  if (it == node.attributes.end()) return nullptr;
  check(it->second.kind == kind, node.describe() + ": attribute '" + attr + "' must be " + what);
  return &it->second;
}
}  // namespace

const Graph* Node::attr_graph(const std::string& attr) const {
  const Attribute* a = find(*this, attr, Attribute::Kind::Graph, "a graph");
  return a ? a->graph.get() : nullptr;
}

bool Node::has_subgraphs() const {
  for (const auto& [name, a] : attributes)
    if (a.kind == Attribute::Kind::Graph) return true;
  return false;
}

int64_t Node::attr_int(const std::string& attr, int64_t fallback) const {
  const Attribute* a = find(*this, attr, Attribute::Kind::Int, "an int");
  return a ? a->i : fallback;
}

float Node::attr_float(const std::string& attr, float fallback) const {
  const Attribute* a = find(*this, attr, Attribute::Kind::Float, "a float");
  return a ? a->f : fallback;
}

std::string Node::attr_string(const std::string& attr, const std::string& fallback) const {
  const Attribute* a = find(*this, attr, Attribute::Kind::String, "a string");
  return a ? a->s : fallback;
}

std::vector<int64_t> Node::attr_ints(const std::string& attr, std::vector<int64_t> fallback) const {
  const Attribute* a = find(*this, attr, Attribute::Kind::Ints, "a list of ints");
  return a ? a->ints : fallback;
}

std::vector<float> Node::attr_floats(const std::string& attr, std::vector<float> fallback) const {
  const Attribute* a = find(*this, attr, Attribute::Kind::Floats, "a list of floats");
  return a ? a->floats : fallback;
}

const Tensor* Node::attr_tensor(const std::string& attr) const {
  const Attribute* a = find(*this, attr, Attribute::Kind::Tensor, "a tensor");
  return a ? &a->t : nullptr;
}

std::string Node::describe() const {
  return op_type + " '" + (name.empty() ? (outputs.empty() ? std::string("?") : outputs[0]) : name) + "'";
}

}  // namespace q8
