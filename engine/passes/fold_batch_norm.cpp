// With a[c] = scale[c] / sqrt(var[c] + ε) and b[c] = B[c] − mean[c] · a[c], BN(y)[c] = a[c]·y[c] + b[c],
// so for a producer whose output channel c is linear in its weight's slice for c:
//   Conv           W'[c, …]        = a[c] · W[c, …],                     bias'[c] = a[c] · bias[c] + b[c]
//   ConvTranspose  W'[gi·Cg + ci, j, …] = a[gi·Mg + j] · W[gi·Cg + ci, j, …]   (group by group, axis 1)
//   Gemm           B' scaled along N (axis 0 if transB, else 1), C' = a · β·C + b, β' = 1
//   MatMul [M,K]×[K,N]: B'[:, n] = a[n] · B[:, n], then an Add of b
// (docs/quantization.md). Weights are copied, never changed in place: another node may share them.
#include "engine/passes/fold_batch_norm.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/ir/weight_axis.h"
#include "engine/ir/graph_index.h"
#include "engine/passes/graph_constants.h"

namespace q8 {

namespace {

struct Affine {
  std::vector<float> a, b;
};

// value's constant, also behind Identity nodes (exporters share equal parameters, such as the
// running variances of freshly initialized layers, through Identity); nullptr when not constant.
const Tensor* parameter(const Graph& g, const GraphIndex& index, const std::string& value) {
  if (const Tensor* t = g.constant(value)) return t;
  const int p = index.producer(value);
  const Node* n = p >= 0 ? &g.nodes[size_t(p)] : nullptr;
  return n && n->op_type == "Identity" && n->domain.empty() && !n->inputs.empty() ? parameter(g, index, n->inputs[0]) : nullptr;
}

// Checks a BN can fold and computes its affine form; "" or the reason it cannot.
std::string bn_affine(const Graph& g, const GraphIndex& index, const Node& bn, Affine& out) {
  if (bn.attr_int("training_mode", 0) != 0) return "training mode";
  if (bn.outputs.size() > 1 && std::any_of(bn.outputs.begin() + 1, bn.outputs.end(), [](auto& o) { return !o.empty(); }))
    return "its running statistics are outputs";
  std::vector<const Tensor*> p;
  for (size_t i = 1; i <= 4; ++i) {
    const Tensor* t = i < bn.inputs.size() ? parameter(g, index, bn.inputs[i]) : nullptr;
    if (!t || t->dtype() != DType::Float32) return "its parameters are not constant float32";
    p.push_back(t);
  }
  const int64_t c = p[0]->numel();
  for (const Tensor* t : p)
    if (t->numel() != c) return "its parameters differ in size";
  const float eps = bn.attr_float("epsilon", 1e-5f);
  out.a.resize(size_t(c)), out.b.resize(size_t(c));
  for (int64_t i = 0; i < c; ++i) {
    const float a = p[0]->data<float>()[i] / std::sqrt(p[3]->data<float>()[i] + eps);
    out.a[size_t(i)] = a;
    out.b[size_t(i)] = p[1]->data<float>()[i] - p[2]->data<float>()[i] * a;
  }
  return "";
}

// W scaled along axis by a[index of that axis] (ConvTranspose: by a[gi·Mg + j]).
Tensor scale_weight(const Tensor& w, size_t axis, const std::vector<float>& a, int64_t group_for_axis1) {
  Tensor out = w.clone();
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < w.rank(); ++d) {
    if (d < axis) outer *= w.dim(d);
    if (d > axis) inner *= w.dim(d);
  }
  const int64_t n = w.dim(axis), per_group_in = group_for_axis1 > 0 ? w.dim(0) / group_for_axis1 : 1;
  float* p = out.data<float>();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < n; ++c) {
      const int64_t channel = group_for_axis1 > 0 ? (o / per_group_in) * n + c : c;
      const float s = a[size_t(channel)];
      for (int64_t i = 0; i < inner; ++i) p[(o * n + c) * inner + i] *= s;
    }
  return out;
}

// The rank of value when the graph tells it (declared shapes; Flatten and Gemm give 2), else -1.
int64_t known_rank(const Graph& g, const std::string& value) {
  if (const ValueInfo* v = g.declared(value); v && v->shape) return int64_t(v->shape->size());
  const int p = GraphIndex(g).producer(value);
  if (p >= 0 && (g.nodes[size_t(p)].op_type == "Flatten" || g.nodes[size_t(p)].op_type == "Gemm")) return 2;
  return -1;
}

struct FoldResult {
  std::string error;        // why it cannot fold; "" when folded
  std::optional<Node> add;  // MatMul: the Add of the folded bias that replaces the BN
};

// Folds bn into producer.
FoldResult fold(Graph& g, Node& producer, const Node& bn, const Affine& f) {
  const int64_t channels = int64_t(f.a.size());
  const Tensor* w = producer.inputs.size() > 1 ? g.constant(producer.inputs[1]) : nullptr;
  if (!w || w->dtype() != DType::Float32) return {producer.op_type + " weight is not a constant float32", {}};
  const std::string& op = producer.op_type;
  const std::optional<int64_t> axis = per_channel_axis(producer, w->rank());
  if (!axis) return {op + " weight has rank " + std::to_string(w->rank()), {}};
  Tensor new_w, new_bias;
  std::string bias_input;
  if (op == "Conv" || op == "ConvTranspose") {
    const int64_t group = producer.attr_int("group", 1);
    const int64_t out_channels = op == "Conv" ? w->dim(0) : w->dim(1) * group;
    if (out_channels != channels) return {"BN has " + std::to_string(channels) + " channels, " + op + " " + std::to_string(out_channels), {}};
    new_w = scale_weight(*w, size_t(*axis), f.a, op == "Conv" ? 0 : group);
    bias_input = producer.inputs.size() > 2 ? producer.inputs[2] : "";
  } else if (op == "Gemm") {
    if (w->dim(size_t(*axis)) != channels) return {"Gemm output does not have " + std::to_string(channels) + " columns", {}};
    new_w = scale_weight(*w, size_t(*axis), f.a, 0);
    bias_input = producer.inputs.size() > 2 ? producer.inputs[2] : "";
  } else {  // MatMul [M, K] × [K, N]: BN's channel axis 1 is N only for 2-D outputs
    if (w->rank() != 2 || w->dim(1) != channels) return {"MatMul weight is not [K, " + std::to_string(channels) + "]", {}};
    if (known_rank(g, producer.inputs[0]) != 2) return {"BN's channel axis is the MatMul's N only for 2-D inputs", {}};
    new_w = scale_weight(*w, size_t(*axis), f.a, 0);
  }
  // The new bias: a · (β·bias) + b, with β for Gemm.
  new_bias = Tensor(DType::Float32, {channels});
  const float beta = op == "Gemm" ? producer.attr_float("beta", 1.0f) : 1.0f;
  const Tensor* old_bias = bias_input.empty() ? nullptr : g.constant(bias_input);
  if (!bias_input.empty() && !old_bias) return {op + " bias is not constant", {}};
  if (old_bias && old_bias->numel() != channels && old_bias->numel() != 1)
    return {op + " bias of shape " + dims_to_string(old_bias->dims()) + " is not per output channel", {}};
  for (int64_t c = 0; c < channels; ++c) {
    const float ob = old_bias ? old_bias->data<float>()[old_bias->numel() == 1 ? 0 : c] : 0.0f;
    new_bias.data<float>()[c] = f.a[size_t(c)] * beta * ob + f.b[size_t(c)];
  }
  producer.inputs[1] = add_initializer(g, producer.inputs[1] + "_bnfold", std::move(new_w));
  const std::string bias_name = add_initializer(g, (producer.name.empty() ? op : producer.name) + "_bnfold_bias", std::move(new_bias));
  if (op == "MatMul") {
    Node add;
    add.op_type = "Add";
    add.name = (producer.name.empty() ? std::string("MatMul") : producer.name) + "_bnfold_add";
    add.inputs = {producer.outputs[0], bias_name};
    add.outputs = {bn.outputs[0]};
    return {"", add};
  }
  if (producer.inputs.size() < 3) producer.inputs.resize(3);
  producer.inputs[2] = bias_name;
  if (op == "Gemm") producer.attributes["beta"] = Attribute::of_float(1.0f);
  producer.outputs[0] = bn.outputs[0];
  return {"", {}};
}

}  // namespace

FoldReport fold_batch_norm(Graph& g) {
  FoldReport report;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node bn = g.nodes[i];
    if (bn.op_type != "BatchNormalization" || !bn.domain.empty() || bn.inputs.empty()) continue;
    const std::string who = bn.name.empty() ? bn.outputs[0] : bn.name;
    Affine f;
    const GraphIndex index(g);
    std::string why = bn_affine(g, index, bn, f);
    const int p = index.producer(bn.inputs[0]);
    if (why.empty() && p < 0) why = "its input comes from no node";
    Node* producer = p >= 0 ? &g.nodes[size_t(p)] : nullptr;
    if (why.empty()) {
      const std::string& op = producer->op_type;
      if (!producer->domain.empty() || (op != "Conv" && op != "ConvTranspose" && op != "Gemm" && op != "MatMul"))
        why = "its input comes from " + op + ", not Conv, ConvTranspose, Gemm or MatMul";
      else if (index.uses(bn.inputs[0]) != 1)
        why = "the " + op + " output it reads has other consumers";
    }
    FoldResult result;
    if (why.empty()) result = fold(g, *producer, bn, f), why = result.error;
    if (!why.empty()) {
      report.kept.emplace_back(who, why);
      continue;
    }
    report.folded.push_back(who);
    if (result.add) {  // MatMul: the BN becomes an Add of the folded bias
      g.nodes[i] = *result.add;
      continue;
    }
    g.nodes.erase(g.nodes.begin() + long(i));
    --i;
  }
  // Drop initializers no node reads any more (the unfolded weights, BN parameters).
  drop_unused_initializers(g);
  return report;
}

}  // namespace q8
