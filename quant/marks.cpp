#include "quant/marks.h"

#include <cstdio>
#include <functional>

#include "engine/ops/traits.h"
#include "quant/output_heads.h"

namespace q8 {

namespace {

// --quantize-op: every float activation input per tensor (for a backend that runs the op in INT8).
NodeMark mark_requested(const Node& n, const MarkContext& ctx) {
  NodeMark m;
  for (size_t i = 0; i < n.onnx_inputs(); ++i)
    if (!n.inputs[i].empty() && !ctx.is_constant(n.inputs[i]) && ctx.is_float(n.inputs[i])) m.inputs.push_back({i, false, std::nullopt, 1});
  if (m.inputs.empty()) m.fp32_reason = "--quantize-op: no float activation input";
  return m;
}

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g %%", 100.0 * share);
  return text;
}

}  // namespace

std::vector<NodeMark> mark_nodes(const MarkContext& ctx, const std::set<std::string>& exclude) {
  const Graph& g = ctx.index.graph();
  std::vector<NodeMark> marks(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.op_type == "Constant") continue;
    if (exclude.count(n.name) || exclude.count(n.op_type)) marks[i].fp32_reason = "excluded";
    else if (ctx.options.quantize_ops.count(n.op_type) && n.domain.empty()) marks[i] = mark_requested(n, ctx);
    else if (const QuantRule rule = find_rule(n)) marks[i] = rule(n, ctx);
    else marks[i].fp32_reason = fp32_reason(n);
  }
  // Output heads stay FP32 where that is cheap (docs/quantization.md), before the Adds ask who
  // reads their sums in INT8.
  if (!ctx.options.quantize_heads) {
    HeadsCost cost;
    for (size_t i : cheap_output_heads(ctx, marks, cost))
      marks[i] = {{}, false, "an output head (the heads hold " + percent(cost.weights) + " of the weights and " + percent(cost.macs) +
                                 " of the arithmetic; --quantize-heads quantizes them)"};
  }
  // An Add is quantized only where its sum is read in INT8: a reader (through scale carriers)
  // quantizes it. Otherwise its Q/DQ pairs would only add noise before an FP32 op (a transformer's
  // residual before its LayerNorm, an additive attention mask). Last Add first, so that a later
  // Add's own answer is settled when an earlier one asks it.
  std::function<bool(const std::string&)> read_quantized = [&](const std::string& value) {
    for (int r : ctx.index.readers(value)) {
      const Node& reader = g.nodes[size_t(r)];
      for (const InputNeed& need : marks[size_t(r)].inputs)
        if (reader.inputs[need.input] == value) return true;
      if (marks[size_t(r)].scale_carrier && !reader.outputs.empty() && read_quantized(reader.outputs[0])) return true;
    }
    return false;
  };
  for (size_t i = g.nodes.size(); i-- > 0;) {
    const Node& n = g.nodes[i];
    if (n.op_type == "Add" && n.domain.empty() && !marks[i].inputs.empty() && !n.outputs.empty() && !read_quantized(n.outputs[0]))
      marks[i] = {{}, false, "its sum feeds no quantized op"};
  }
  return marks;
}

}  // namespace q8
