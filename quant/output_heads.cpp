#include "quant/output_heads.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "engine/ops/traits.h"

namespace q8 {

namespace {

bool is_weighted(const Node& n, const MarkContext& ctx) {
  static const std::set<std::string> kWeighted = {"Conv", "ConvTranspose", "Gemm", "MatMul"};
  return n.domain.empty() && kWeighted.count(n.op_type) && n.inputs.size() >= 2 && ctx.index.constant(n.inputs[1]);
}

// Whether n only moves, resamples or maps values one at a time on the way to an output, by its
// traits: values rearranged (Reshape, Transpose…) or Relu's, selected (an op that commutes with
// quantization: Slice, MaxPool…), one value at a time (the layout pass's unary ops: Cast, Sigmoid,
// Clip…), joined along the channels (Concat), an elementwise op of several inputs with a constant
// one (a grid, a stride); and the resamplings and normalizations over one axis of an output that
// the traits table has no category for (Resize, Upsample, Softmax, LogSoftmax).
bool passes_values_on(const Node& n, const MarkContext& ctx) {
  static const std::set<std::string> kResampleOrNormalize = {"Resize", "Upsample", "Softmax", "LogSoftmax"};
  const OpTraits* t = find_traits(n);
  if (!t || !n.domain.empty()) return false;
  if (t->values != Values::Computed || t->commutes || t->layout == Layout::Unary || t->layout == Layout::Channels ||
      kResampleOrNormalize.count(n.op_type))
    return true;
  return t->layout == Layout::Broadcast && n.inputs.size() == 2 && (ctx.is_constant(n.inputs[0]) || ctx.is_constant(n.inputs[1]));
}

// Whether everything value reaches is such an op or a graph output, and a graph output is reached.
bool reaches_only_outputs(const std::string& value, const MarkContext& ctx, const std::set<std::string>& outputs) {
  const Graph& g = ctx.index.graph();
  std::vector<std::string> open = {value};
  std::set<std::string> seen = {value};
  bool output = false;
  while (!open.empty()) {
    const std::string v = open.back();
    open.pop_back();
    output = output || outputs.count(v);
    for (int r : ctx.index.readers(v)) {
      const Node& reader = g.nodes[size_t(r)];
      if (!passes_values_on(reader, ctx)) return false;
      for (const std::string& o : reader.outputs)
        if (!o.empty() && seen.insert(o).second) open.push_back(o);
    }
  }
  return output;
}

// Whether value comes from a weighted op marks quantize, through scale carriers (Relu, MaxPool,
// Reshape…): keeping a head that reads it FP32 would make that op write float too.
bool fed_by_weighted(std::string value, const MarkContext& ctx, const std::vector<NodeMark>& marks) {
  const Graph& g = ctx.index.graph();
  for (int p = ctx.index.producer(value); p >= 0; p = ctx.index.producer(value)) {
    const Node& producer = g.nodes[size_t(p)];
    if (is_weighted(producer, ctx) && !marks[size_t(p)].inputs.empty()) return true;
    if (!marks[size_t(p)].scale_carrier || producer.inputs.empty()) return false;
    value = producer.inputs[0];
  }
  return false;
}

// Multiply-accumulates a sample: the weights times the output positions (Conv: the input's
// positions over the strides' product, as a convolution padded to keep its size has; ConvTranspose:
// the input's positions) or rows (Gemm, MatMul); positions and rows from the values the table saw
// of input 0 a sample over its channels. Nothing where the table does not hold input 0.
std::optional<double> macs(const Node& n, const Tensor& w, const MarkContext& ctx) {
  if (!ctx.table || ctx.table->samples == 0) return std::nullopt;
  const auto it = ctx.table->activations.find(n.inputs[0]);
  if (it == ctx.table->activations.end() || w.rank() < 2) return std::nullopt;
  const double values = double(it->second.stats.elements) / double(ctx.table->samples);
  double channels = 0.0, per = 1.0;
  if (n.op_type == "Conv") {
    channels = double(w.dim(1) * n.attr_int("group", 1));
    for (int64_t s : n.attr_ints("strides")) per *= double(std::max<int64_t>(s, 1));
  } else if (n.op_type == "ConvTranspose") {
    channels = double(w.dim(0));
  } else if (n.op_type == "Gemm") {
    channels = double(n.attr_int("transB", 0) ? w.dim(1) : w.dim(0));
  } else {
    channels = double(w.dim(w.rank() - 2));
  }
  if (channels <= 0.0) return std::nullopt;
  return double(w.numel()) * values / channels / per;
}

}  // namespace

std::vector<size_t> cheap_output_heads(const MarkContext& ctx, const std::vector<NodeMark>& marks, HeadsCost& cost) {
  const Graph& g = ctx.index.graph();
  std::set<std::string> outputs;
  for (const ValueInfo& o : g.outputs) outputs.insert(o.name);
  double weights = 0.0, head_weights = 0.0, work = 0.0, head_work = 0.0;
  std::vector<size_t> found;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!is_weighted(n, ctx) || marks[i].inputs.empty()) continue;
    const Tensor& w = *ctx.index.constant(n.inputs[1]);
    const std::optional<double> m = macs(n, w, ctx);
    if (!m) return {};
    weights += double(w.numel());
    work += *m;
    if (n.outputs.empty() || !reaches_only_outputs(n.outputs[0], ctx, outputs) || fed_by_weighted(n.inputs[0], ctx, marks)) continue;
    head_weights += double(w.numel());
    head_work += *m;
    found.push_back(i);
  }
  cost = {weights > 0.0 ? head_weights / weights : 0.0, work > 0.0 ? head_work / work : 0.0};
  if (cost.weights > kCheapHeadsShare || cost.macs > kCheapHeadsShare) found.clear();
  return found;
}

}  // namespace q8
