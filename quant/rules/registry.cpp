#include <map>

#include "quant/graph_constants.h"
#include "quant/rules/rule.h"
#include "quant/value_types.h"

namespace q8 {

#define Q8_RULE(op, fn) NodeMark fn(const Node&, const MarkContext&);
#include "quant/rules/rules.inc"
#undef Q8_RULE

QuantRule find_rule(const std::string& op_type) {
  static const std::map<std::string, QuantRule> rules = {
#define Q8_RULE(op, fn) {#op, fn},
#include "quant/rules/rules.inc"
#undef Q8_RULE
  };
  auto it = rules.find(op_type);
  return it == rules.end() ? nullptr : it->second;
}

bool MarkContext::is_constant(const std::string& value) const { return graph.constant(value) != nullptr; }

bool MarkContext::is_float(const std::string& value) const {
  const DType d = value_dtype(graph, value);
  return d == DType::Undefined || d == DType::Float32 || d == DType::Float16;
}

std::string MarkContext::producer_op(const std::string& value) const {
  const int p = graph.producer(value);
  return p < 0 || is_constant(value) ? "" : graph.nodes[size_t(p)].op_type;
}

}  // namespace q8
