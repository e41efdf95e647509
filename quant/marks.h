// Step 1 of quantize_graph: every node marked by its rule (quant/rules/: which inputs to quantize,
// per tensor or per channel), a scale carrier by its traits, or FP32 for a reason.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "quant/rules/rule.h"

namespace q8 {

// Per node of ctx's graph; `exclude` holds node names and op types left FP32.
std::vector<NodeMark> mark_nodes(const MarkContext& ctx, const std::set<std::string>& exclude);

}  // namespace q8
