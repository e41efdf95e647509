#include <map>

#include "quant/graph_constants.h"
#include "quant/rules/rule.h"
#include "engine/ir/value_types.h"

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

bool MarkContext::is_constant(const std::string& value) const { return index.constant(value) != nullptr; }

bool MarkContext::is_float(const std::string& value) const {
  const DType d = types.of(value);
  return d == DType::Undefined || d == DType::Float32 || d == DType::Float16;
}

}  // namespace q8
