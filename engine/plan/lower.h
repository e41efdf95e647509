// Lowering a QDQ model into the INT8 engine's fused integer ops (domain q8): pattern rules
// (rules/rules.inc) replace DQ → op → Q groups; whatever no rule takes stays as it is, DQ → FP32
// op → Q, never approximated. The report says for every node what became of it.
#pragma once

#include <string>
#include <vector>

#include "engine/ir/graph.h"

namespace q8 {

struct LoweringEntry {
  std::string node;     // "Conv 'conv1'"
  std::string outcome;  // "QConv 'conv1'", "removed", "FP32", …
  std::string reason;   // for FP32: why no rule took it
};

struct Lowered {
  Graph graph;
  std::vector<LoweringEntry> report;
  int fused_nodes = 0;  // q8-domain nodes in graph
};

Lowered lower_qdq(const Graph& qdq);
// Whether op_type anchors a lowering rule of its own (rules/rules.inc); carriers need none.
bool has_lowering_rule(const std::string& op_type);

// One line per entry, aligned ("  Conv 'conv1' → QConv 'conv1'"), and a summary line first.
std::string format_lowering_report(const Lowered& lowered);

}  // namespace q8
