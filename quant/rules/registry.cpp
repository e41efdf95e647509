#include <map>

#include "engine/ops/op.h"
#include "engine/passes/graph_constants.h"
#include "quant/rules/rule.h"
#include "engine/ops/value_types.h"
#include "engine/ops/traits.h"

namespace q8 {

#define Q8_RULE(op, fn) NodeMark fn(const Node&, const MarkContext&);
#include "quant/rules/rules.inc"
#undef Q8_RULE

NodeMark mark_scale_carrier(const Node&, const MarkContext&);

namespace {
const std::map<std::string, QuantRule>& rules() {
  static const std::map<std::string, QuantRule> table = {
#define Q8_RULE(op, fn) {#op, fn},
#include "quant/rules/rules.inc"
#undef Q8_RULE
  };
  return table;
}
}  // namespace

bool has_own_rule(const std::string& op_type) { return rules().count(op_type) > 0; }

QuantRule find_rule(const Node& node) {
  if (!node.domain.empty() && node.domain != "ai.onnx") return nullptr;
  if (auto it = rules().find(node.op_type); it != rules().end()) return it->second;
  const OpTraits* traits = find_traits(node);
  return traits && traits->commutes ? mark_scale_carrier : nullptr;
}

void check_quantize_op(const std::string& op_type, const std::string& what) {
  check_argument(find_op(op_type) != nullptr, what + " " + op_type + ": not an op q8 registers");
  check_argument(!has_own_rule(op_type), what + " " + op_type + ": it has a quantization rule of its own");
}


bool MarkContext::is_float(const std::string& value) const {
  const DType d = types.of(value);
  return d == DType::Undefined || d == DType::Float32 || d == DType::Float16;
}

}  // namespace q8
