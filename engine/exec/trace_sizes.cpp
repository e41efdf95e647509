// Executor::trace_sizes: every value's size and lifetime at given input shapes, without running
// the model (docs/plan.md, "Memory plan").
#include <algorithm>

#include "engine/exec/executor.h"
#include "engine/ir/graph_index.h"
#include "engine/onnx/import.h"
#include "engine/onnx/node_shapes.h"
#include "engine/ops/traits.h"

namespace q8 {

namespace {

// Whether libonnx's schema of node (its newest up to opset 17) describes it at this opset.
bool libonnx_schema_holds(const Node& node, int64_t opset) {
  if (opset <= kLibOnnxOpset) return true;
  const OpTraits* traits = find_traits(node);
  return traits && (traits->changed_after_17 == 0 || traits->changed_after_17 > opset);
}

// A value this small, computed from values known before running, is computed while tracing: the
// shape subgraphs of exports (Shape → Gather → Concat → Reshape) and their masks' indices.
constexpr int64_t kSmallValue = int64_t(1) << 16;

std::string node_context(const Node& node, size_t index) { return node.describe() + " (node " + std::to_string(index) + ")"; }

}  // namespace

SizeTrace Executor::trace_sizes(const std::vector<TensorDesc>& input_descs) {
  check(input_descs.size() == graph_.inputs.size(), "trace_sizes: " + std::to_string(input_descs.size()) + " input shapes for " +
                                                        std::to_string(graph_.inputs.size()) + " graph inputs");
  const GraphIndex index(graph_);
  std::map<std::string, TensorDesc> descs;  // every value whose type and shape are known
  std::map<std::string, Tensor> computed;   // small values computed from values known before running
  for (size_t i = 0; i < graph_.inputs.size(); ++i) descs[graph_.inputs[i].name] = input_descs[i];
  const auto known_value = [&](const std::string& name) -> const Tensor* {
    if (const Tensor* c = index.constant(name)) return c;
    const auto it = computed.find(name);
    return it == computed.end() ? nullptr : &it->second;
  };
  const auto desc_of = [&](const std::string& name) -> std::optional<TensorDesc> {
    if (const Tensor* c = index.constant(name)) return c->desc();
    const auto it = descs.find(name);
    return it == descs.end() ? std::nullopt : std::optional(it->second);
  };

  SizeTrace trace;
  std::map<std::string, size_t> entry;  // value → its entry in trace.values
  planned_views_.assign(graph_.nodes.size(), false);
  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    const Node& node = graph_.nodes[i];
    PreparedNode& prepared = *prepared_[i];
    std::vector<TensorDesc> in(node.inputs.size());
    std::vector<const Tensor*> values(node.inputs.size(), nullptr);
    bool inputs_known = true, evaluable = backends_[i]->memory() == kHostMemory;
    for (size_t slot = 0; slot < node.inputs.size(); ++slot) {
      const std::string& name = node.inputs[slot];
      if (name.empty()) continue;
      if (auto it = entry.find(name); it != entry.end()) trace.values[it->second].last = int(i);
      const std::optional<TensorDesc> d = desc_of(name);
      if (!d) {
        inputs_known = false;
        continue;
      }
      in[slot] = *d;
      values[slot] = known_value(name);
      if (prepared.reads_input_values(slot))
        evaluable = evaluable && values[slot] && values[slot]->numel() <= kSmallValue;
    }
    std::vector<std::optional<TensorDesc>> out(node.outputs.size());
    if (inputs_known) {
      while (!in.empty() && in.back().dtype == DType::Undefined) in.pop_back();
      try {
        if (reshaped_for_[i] != in) {
          reshaped_[i] = prepared.reshape(in);
          reshaped_for_[i] = in;
        }
        for (size_t k = 0; k < out.size() && k < reshaped_[i].outputs.size(); ++k) out[k] = reshaped_[i].outputs[k];
        const bool all_sized = std::all_of(out.begin(), out.end(), [](const auto& d) { return d.has_value(); });
        if (!all_sized && libonnx_schema_holds(node, graph_.opset())) {
          const auto inferred = infer_with_schema(node, graph_.opset(), in, values);
          for (size_t k = 0; k < out.size(); ++k)
            if (!out[k]) out[k] = inferred[k];
        }
        const bool outputs_small = std::all_of(out.begin(), out.end(), [](const auto& d) { return !d || numel(d->dims) <= kSmallValue; });
        if (evaluable && outputs_small) {
          Inputs args;
          std::vector<Tensor> dims_only;
          dims_only.reserve(in.size());
          for (size_t slot = 0; slot < in.size(); ++slot) {
            if (in[slot].dtype == DType::Undefined) args.push_back(nullptr);
            else if (values[slot]) args.push_back(values[slot]);
            else args.push_back(&dims_only.emplace_back(Tensor::uninitialized(in[slot].dtype, in[slot].dims)));  // Shape reads dims only
          }
          std::vector<Tensor> results(node.outputs.size());
          for (size_t k = 0; k < results.size() && k < reshaped_[i].outputs.size(); ++k)
            if (const auto& d = reshaped_[i].outputs[k]) results[k] = Tensor::uninitialized(d->dtype, d->dims);
          if (workspace_.size() < reshaped_[i].workspace_bytes) workspace_.resize(reshaped_[i].workspace_bytes);
          prepared.run(args, results, std::span<std::byte>(workspace_.data(), reshaped_[i].workspace_bytes));
          for (size_t k = 0; k < node.outputs.size() && k < results.size(); ++k) {
            if (node.outputs[k].empty() || results[k].empty()) continue;
            out[k] = results[k].desc();
            computed[node.outputs[k]] = std::move(results[k]);
          }
        }
      } catch (const Error& e) {
        throw e.with_context(node_context(node, i));
      }
    }
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      const std::string& name = node.outputs[k];
      if (name.empty()) continue;
      if (!out[k]) {
        trace.unsized.push_back(name);
        continue;
      }
      descs[name] = *out[k];
      const auto source = k == 0 && plans_view(i) ? entry.find(node.inputs[0]) : entry.end();
      if (source != entry.end()) {
        entry[name] = source->second;  // a view: its readers keep its input's buffer, as a traced run plans it
        planned_views_[i] = true;
        continue;
      }
      entry[name] = trace.values.size();
      trace.values.push_back({name, int64_t(numel(out[k]->dims) * int64_t(dtype_size(out[k]->dtype))), int(i), int(i)});
    }
  }
  for (const ValueInfo& o : graph_.outputs)
    if (auto it = entry.find(o.name); it != entry.end()) trace.values[it->second].last = int(graph_.nodes.size());
  // The executor's own buffers, as plan_arena picks them from a traced run.
  for (const BufferLifetime& v : trace.values) {
    const size_t node = size_t(v.first);
    const auto& outs = graph_.nodes[node].outputs;
    const size_t k = size_t(std::find(outs.begin(), outs.end(), v.value) - outs.begin());
    const bool host = backends_[node]->memory() == kHostMemory;
    if (host && k < reshaped_[node].outputs.size() && reshaped_[node].outputs[k] && !index.is_graph_output(v.value)) trace.owned.push_back(v);
  }
  return trace;
}

bool Executor::use_memory_plan(const std::vector<TensorDesc>& input_descs, const std::vector<BufferLifetime>& buffers,
                               const MemoryPlan& plan) {
  const SizeTrace trace = trace_sizes(input_descs);
  const auto same = [](const BufferLifetime& a, const BufferLifetime& b) {
    return a.value == b.value && a.bytes == b.bytes && a.first == b.first && a.last == b.last;
  };
  if (trace.owned.size() != buffers.size() || plan.offsets.size() != buffers.size() ||
      !std::equal(buffers.begin(), buffers.end(), trace.owned.begin(), same))
    return false;
  Arena a;
  a.input_descs = input_descs;
  a.offsets.resize(graph_.nodes.size());
  for (size_t i = 0; i < graph_.nodes.size(); ++i) a.offsets[i].assign(graph_.nodes[i].outputs.size(), -1);
  for (size_t b = 0; b < buffers.size(); ++b) {
    const auto& outs = graph_.nodes[size_t(buffers[b].first)].outputs;
    a.offsets[size_t(buffers[b].first)][size_t(std::find(outs.begin(), outs.end(), buffers[b].value) - outs.begin())] = plan.offsets[b];
  }
  a.bytes = Tensor::uninitialized(DType::Int8, {plan.arena_bytes});
  arena_ = std::move(a);
  memory_ = {trace.values, plan, plan.total_bytes};
  return true;
}

}  // namespace q8
