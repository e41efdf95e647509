#include "quant/materialize.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "calib/weight_ranges.h"
#include "engine/ir/graph_index.h"
#include "engine/ir/rounding.h"
#include "engine/ops/traits.h"
#include "engine/passes/graph_constants.h"
#include "quant/activation_scales.h"
#include "quant/marks.h"
#include "quant/opset_upgrade.h"

namespace q8 {

namespace {

constexpr int64_t kQdqOpset = 13;  // DequantizeLinear's axis attribute

std::string who(const Node& n) { return n.name.empty() ? n.op_type + " → " + (n.outputs.empty() ? "" : n.outputs[0]) : n.name; }

}  // namespace

std::vector<float> weight_scales(const Tensor& w, std::optional<int64_t> axis, int64_t group) {
  std::vector<double> amax;
  if (!axis) {
    double m = 0;
    for (int64_t i = 0; i < w.numel(); ++i) m = std::max(m, double(std::fabs(w.data<float>()[i])));
    amax = {m};
  } else if (*axis == 1 && group > 1) {
    const std::vector<double> exact = conv_transpose_channel_amax(w, group);  // M values
    const int64_t mg = w.dim(1);
    amax.assign(size_t(mg), 0.0);
    for (size_t o = 0; o < exact.size(); ++o) amax[o % size_t(mg)] = std::max(amax[o % size_t(mg)], exact[o]);
  } else {
    amax = channel_amax(w, *axis);
  }
  std::vector<float> scales;
  for (double a : amax) scales.push_back(float(std::max(a, kMinAmax) / 127.0));
  return scales;
}

Tensor quantize_weight(const Tensor& w, const std::vector<float>& scales, std::optional<int64_t> axis) {
  Tensor q(DType::Int8, w.dims());
  int64_t outer = 1, channels = 1, inner = w.numel();
  if (axis) {
    const size_t a = size_t(*axis);
    outer = 1, inner = 1, channels = w.dim(a);
    for (size_t d = 0; d < w.rank(); ++d) {
      if (d < a) outer *= w.dim(d);
      if (d > a) inner *= w.dim(d);
    }
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c) {
      const float s = scales[size_t(axis ? c : 0)];
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t k = (o * channels + c) * inner + i;
        q.data<int8_t>()[k] = int8_t(std::clamp(round_half_even(w.data<float>()[k] / s), -127.0f, 127.0f));
      }
    }
  return q;
}

namespace {

// Exclusions must name something.
void check_exclusions(const Graph& g, const std::set<std::string>& exclude) {
  for (const auto& e : exclude) {
    const bool found = std::any_of(g.nodes.begin(), g.nodes.end(), [&](const Node& n) { return n.name == e || n.op_type == e; });
    check_argument(found, "--exclude " + e + ": no node or op type of that name in the model");
  }
}

// Step 0: BatchNorm and constants folded, the opset raised to DequantizeLinear's axis.
void prepare(Graph& g, QuantizeReport& report) {
  report.fold = fold_batch_norm(g);
  report.constants = fold_constants(g);
  report.opset_from = report.opset_to = g.opset();
  if (g.opset() < kQdqOpset) {
    upgrade_opset(g, kQdqOpset);
    report.opset_to = g.opset();
  }
}

}  // namespace

std::vector<NodeMark> prepare_and_mark(Graph& g, const QuantOptions& options, const std::set<std::string>& exclude,
                                       QuantizeReport& report, const RangeTable* table) {
  check_exclusions(g, exclude);
  prepare(g, report);
  const GraphIndex index(g);
  const ValueTypes types(index);
  return mark_nodes({index, types, options, data_independent_values(g), table}, exclude);
}

Graph quantize_graph(Graph g, const RangeTable& table, const QuantOptions& options, const std::set<std::string>& exclude,
                     QuantizeReport& report) {
  const std::vector<NodeMark> marks = prepare_and_mark(g, options, exclude, report, &table);
  // One analysis of the prepared graph serves the remaining steps; the nodes stay as they are until step 3.
  const GraphIndex index(g);
  const std::set<std::string> independent = data_independent_values(g);
  const std::map<std::string, float> scales = activation_scales(index, marks, table, options.pinned, independent);
  materialize(g, index, marks, scales, options, report);
  return g;
}

void materialize(Graph& g, const GraphIndex& index, const std::vector<NodeMark>& marks, const std::map<std::string, float>& scales,
                 const QuantOptions& options, QuantizeReport& report) {
  const std::string zp_name = add_initializer(g, "q8_zero_point", Tensor::scalar<int8_t>(0));
  std::map<std::string, std::string> dq_of;  // activation → its DQ output
  std::map<std::string, std::string> weight_dq_of;  // weight|axis → its DQ output
  std::vector<Node> weight_nodes;
  std::map<std::string, std::vector<Node>> after;  // value → Q/DQ nodes to insert after its producer
  std::vector<Node> at_start;                      // for graph inputs
  auto qdq_activation = [&](const std::string& t) {
    if (auto it = dq_of.find(t); it != dq_of.end()) return it->second;
    const std::string scale = add_initializer(g, t + "_scale", Tensor::scalar<float>(scales.at(t)));
    Node q, dq;
    q.op_type = "QuantizeLinear", q.name = t + "_QuantizeLinear", q.inputs = {t, scale, zp_name}, q.outputs = {t + "_quantized"};
    dq.op_type = "DequantizeLinear", dq.name = t + "_DequantizeLinear", dq.inputs = {q.outputs[0], scale, zp_name};
    dq.outputs = {t + "_dequantized"};
    std::vector<Node>& where = index.producer(t) >= 0 ? after[t] : at_start;
    where.push_back(q);
    where.push_back(dq);
    ++report.activation_qdq;
    return dq_of[t] = dq.outputs[0];
  };
  auto dq_weight = [&](const Node& node, const InputNeed& need) {
    const std::string& w_name = node.inputs[need.input];
    const std::string key = w_name + "|" + (need.axis ? std::to_string(*need.axis) : "t") + "|" + std::to_string(need.group);
    if (auto it = weight_dq_of.find(key); it != weight_dq_of.end()) return it->second;
    const Tensor w = *g.constant(w_name);
    check(w.dtype() == DType::Float32, who(node) + ": weight '" + w_name + "' is not float32");
    if (need.axis && *need.axis == 1 && need.group > 1)
      report.warnings.push_back(who(node) + ": ConvTranspose with group " + std::to_string(need.group) + " exports " +
                                std::to_string(w.dim(1)) + " scales on axis 1, the max over groups of its " +
                                std::to_string(w.dim(1) * need.group) + " output channels (--per-tensor-weights avoids it)");
    const std::vector<float> scales = weight_scales(w, need.axis, need.group);
    const Tensor scale_t = need.axis ? Tensor::from_vector<float>({int64_t(scales.size())}, scales) : Tensor::scalar<float>(scales[0]);
    const Tensor zp_t = need.axis ? Tensor(DType::Int8, {int64_t(scales.size())}) : Tensor::scalar<int8_t>(0);
    const std::string scale = add_initializer(g, w_name + "_scale", scale_t);
    const std::string zp = add_initializer(g, w_name + "_zero_point", zp_t);
    Node dq;
    dq.op_type = "DequantizeLinear", dq.name = w_name + "_DequantizeLinear", dq.outputs = {w_name + "_dequantized"};
    if (need.axis) dq.attributes["axis"] = Attribute::of_int(*need.axis);
    if (options.fp32_weights) {  // FP32 weight behind Q→DQ
      Node q;
      q.op_type = "QuantizeLinear", q.name = w_name + "_QuantizeLinear", q.inputs = {w_name, scale, zp}, q.outputs = {w_name + "_quantized"};
      if (need.axis) q.attributes["axis"] = Attribute::of_int(*need.axis);
      weight_nodes.push_back(q);
      dq.inputs = {q.outputs[0], scale, zp};
    } else {
      dq.inputs = {add_initializer(g, w_name + "_quantized", quantize_weight(w, scales, need.axis)), scale, zp};
    }
    weight_nodes.push_back(dq);
    ++report.weight_dq;
    return weight_dq_of[key] = dq.outputs[0];
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    if (marks[i].inputs.empty()) {
      if (!marks[i].scale_carrier && n.op_type != "Constant")
        report.fp32.emplace_back(who(n), marks[i].fp32_reason.empty() ? "nothing to quantize" : marks[i].fp32_reason);
      continue;
    }
    for (const InputNeed& need : marks[i].inputs)
      n.inputs[need.input] = need.weight ? dq_weight(n, need) : qdq_activation(n.inputs[need.input]);
    report.quantized.push_back(who(n));
  }
  std::vector<Node> nodes = weight_nodes;
  nodes.insert(nodes.end(), at_start.begin(), at_start.end());
  for (const Node& n : g.nodes) {
    nodes.push_back(n);
    for (const auto& o : n.outputs)
      if (auto it = after.find(o); it != after.end()) nodes.insert(nodes.end(), it->second.begin(), it->second.end());
  }
  g.nodes = std::move(nodes);
  // Weights now read through their DQ: drop float initializers nothing reads.
  drop_unused_initializers(g);
  g.value_info.clear();  // stale after the rewrite
}

}  // namespace q8
