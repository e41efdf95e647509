#include "quant/marks.h"

#include "engine/ops/traits.h"

namespace q8 {

std::vector<NodeMark> mark_nodes(const MarkContext& ctx, const std::set<std::string>& exclude) {
  const Graph& g = ctx.index.graph();
  std::vector<NodeMark> marks(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.op_type == "Constant") continue;
    if (exclude.count(n.name) || exclude.count(n.op_type)) marks[i].fp32_reason = "excluded";
    else if (const QuantRule rule = find_rule(n)) marks[i] = rule(n, ctx);
    else marks[i].fp32_reason = fp32_reason(n);
  }
  return marks;
}

}  // namespace q8
