#include "engine/plan/lower.h"

#include <algorithm>
#include <map>
#include <set>

#include "engine/ir/error.h"
#include "engine/ops/traits.h"
#include "engine/plan/reference/backend.h"
#include "engine/plan/rules/rule.h"

namespace q8 {

#define Q8_LOWERING_RULE(op, fn) std::optional<Fusion> fn(const QdqGraph&, int, std::string&);
#include "engine/plan/rules/rules.inc"
#undef Q8_LOWERING_RULE
std::optional<Fusion> lower_carrier(const QdqGraph&, int, std::string&);

namespace {

constexpr RuleEntry kRules[] = {
#define Q8_LOWERING_RULE(op, fn) {#op, fn},
#include "engine/plan/rules/rules.inc"
#undef Q8_LOWERING_RULE
};

// The rules tried for node, in order: its op's own (rules.inc), else lower_carrier for an op that
// commutes with quantization.
std::vector<LoweringRule> rules_for(const Node& node) {
  std::vector<LoweringRule> out;
  for (const RuleEntry& r : kRules)
    if (node.op_type == r.anchor_op) out.push_back(r.rule);
  const OpTraits* traits = find_traits(node);
  if (out.empty() && traits && traits->commutes) out.push_back(lower_carrier);
  return out;
}

std::string describe(const Node& n, size_t index) {
  return n.describe() + (n.name.empty() ? " (node " + std::to_string(index) + ")" : "");
}

// Drops nodes none of whose outputs is read or is a graph output, then unread initializers; a
// Dropout's mask that nothing reads is left out (ONNX makes it optional), so no backend makes it.
void remove_dead(Graph& g) {
  std::set<std::string> needed;
  for (const auto& o : g.outputs) needed.insert(o.name);
  std::vector<Node> kept;
  for (size_t i = g.nodes.size(); i-- > 0;) {
    Node& n = g.nodes[i];
    bool used = false;
    for (const auto& o : n.outputs) used = used || needed.count(o);
    if (!used) continue;
    if (n.op_type == "Dropout" && n.domain.empty() && n.outputs.size() > 1 && !needed.count(n.outputs[1])) n.outputs.resize(1);
    for (const auto& in : n.inputs) needed.insert(in);
    kept.push_back(n);
  }
  g.nodes.assign(kept.rbegin(), kept.rend());
  for (auto it = g.initializers.begin(); it != g.initializers.end();)
    it = needed.count(it->first) ? std::next(it) : g.initializers.erase(it);
}

}  // namespace

bool has_lowering_rule(const std::string& op_type) {
  return std::any_of(std::begin(kRules), std::end(kRules), [&](const RuleEntry& r) { return op_type == r.anchor_op; });
}

Lowered lower_qdq(const Graph& qdq) {
  QdqGraph g(qdq);
  const size_t n = qdq.nodes.size();
  std::vector<int> owner(n, -1);             // the fusion that consumed each node
  g.set_owners(&owner);
  std::vector<Fusion> fusions;
  std::vector<std::string> reasons(n);
  for (size_t i = 0; i < n; ++i) {
    if (owner[i] >= 0 || !qdq.nodes[i].domain.empty()) continue;
    for (const LoweringRule rule : rules_for(qdq.nodes[i])) {
      std::string why;
      std::optional<Fusion> f;
      try {
        f = rule(g, int(i), why);
      } catch (const Error& e) {
        throw e.with_context("lowering " + describe(qdq.nodes[i], i));
      }
      bool free = f.has_value();
      for (int c : f ? f->consumed : std::vector<int>{}) free = free && owner[size_t(c)] < 0;
      if (!free) {
        if (!why.empty() || reasons[i].empty()) reasons[i] = why;  // a rule that does not apply says nothing
        continue;
      }
      for (int c : f->consumed) owner[size_t(c)] = int(fusions.size());
      fusions.push_back(std::move(*f));
      break;
    }
  }

  Lowered out;
  out.graph = qdq;
  out.graph.nodes.clear();
  std::vector<size_t> last(fusions.size(), 0);
  for (size_t k = 0; k < fusions.size(); ++k)
    for (int c : fusions[k].consumed) last[k] = std::max(last[k], size_t(c));
  for (size_t i = 0; i < n; ++i) {
    if (owner[i] < 0) {
      out.graph.nodes.push_back(qdq.nodes[i]);
      continue;
    }
    if (last[size_t(owner[i])] != i) continue;
    Fusion& f = fusions[size_t(owner[i])];
    // A fusion's constants are named after its node (derived_name), and ONNX lets node names be
    // empty or repeated: a name an earlier fusion took gets a suffix, in the nodes that read it too.
    for (const auto& [name, t] : f.initializers) {
      std::string unique = name;
      for (int k = 1; out.graph.initializers.count(unique) || g.producer(unique) >= 0 || !g.readers(unique).empty(); ++k)
        unique = name + "_" + std::to_string(k);
      out.graph.initializers[unique] = t;
      if (unique == name) continue;
      std::replace(f.fused.inputs.begin(), f.fused.inputs.end(), name, unique);
      for (Node& node : f.after) std::replace(node.inputs.begin(), node.inputs.end(), name, unique);
    }
    out.graph.nodes.push_back(f.fused);
    out.graph.nodes.insert(out.graph.nodes.end(), f.after.begin(), f.after.end());
  }
  remove_dead(out.graph);
  bool has_domain = false;
  for (const OpsetImport& o : out.graph.opsets) has_domain = has_domain || o.domain == kInt8Domain;
  if (!has_domain) out.graph.opsets.push_back({kInt8Domain, 1});
  std::set<std::string> produced;
  for (const Node& node : out.graph.nodes) {
    out.fused_nodes += node.domain == kInt8Domain;
    produced.insert(node.outputs.begin(), node.outputs.end());
  }

  for (size_t i = 0; i < n; ++i) {
    const Node& node = qdq.nodes[i];
    LoweringEntry e{describe(node, i), "", ""};
    if (owner[i] >= 0) {
      const Fusion& f = fusions[size_t(owner[i])];
      e.outcome = f.fused.domain.empty() ? (f.fused.op_type == "Identity" ? "removed (DQ → Q with equal scales)"
                                                                           : "runs on int8 (" + node.op_type + ")")
                                         : "fused into " + f.fused.describe();
    } else if (!node.outputs.empty() && !produced.count(node.outputs[0])) {
      e.outcome = "removed (only fused ops read it)";
    } else if (node.op_type == "QuantizeLinear" || node.op_type == "DequantizeLinear") {
      e.outcome = "kept (an FP32 op reads or writes it)";
    } else {
      e.outcome = "FP32";
      e.reason = reasons[i].empty() ? fp32_reason(node) : reasons[i];
    }
    out.report.push_back(std::move(e));
  }
  return out;
}

std::string format_lowering_report(const Lowered& lowered) {
  int fp32 = 0;
  for (const auto& e : lowered.report) fp32 += e.outcome == "FP32";
  std::string s = "lowering: " + std::to_string(lowered.report.size()) + " nodes → " + std::to_string(lowered.fused_nodes) +
                  " fused INT8 ops, " + std::to_string(fp32) + " FP32\n";
  for (const auto& e : lowered.report)
    s += "  " + e.node + " → " + e.outcome + (e.reason.empty() ? "" : ": " + e.reason) + "\n";
  return s;
}

}  // namespace q8
