#include "quant/smooth_quant.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/ir/graph_index.h"
#include "engine/passes/fold_constants.h"
#include "engine/passes/graph_constants.h"

namespace q8 {

namespace {

// A MatMul (or Gemm without transA) that multiplies `x`, its input 0, by a constant 2-D weight.
bool smoothable(const Graph& g, const Node& n, const std::string& x) {
  if (!n.domain.empty() || n.inputs.size() < 2 || n.inputs[0] != x) return false;
  if (n.op_type != "MatMul" && !(n.op_type == "Gemm" && n.attr_int("transA", 0) == 0)) return false;
  const Tensor* w = g.constant(n.inputs[1]);
  return w && w->dtype() == DType::Float32 && w->rank() == 2;
}

// Row j (input channel j) of a weight as the node reads it: B[K, N], or with transB B[N, K].
bool transposed(const Node& n) { return n.op_type == "Gemm" && n.attr_int("transB", 0) != 0; }
int64_t input_channels(const Node& n, const Tensor& w) { return transposed(n) ? w.dim(1) : w.dim(0); }

// max |W[j, ·]| per input channel j, into m.
void weight_channel_max(const Node& n, const Tensor& w, std::vector<double>& m) {
  const int64_t rows = w.dim(0), cols = w.dim(1);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const size_t j = size_t(transposed(n) ? c : r);
      m[j] = std::max(m[j], double(std::fabs(w.data<float>()[r * cols + c])));
    }
}

// w with input channel j multiplied by s[j].
Tensor scaled_weight(const Node& n, const Tensor& w, const std::vector<double>& s) {
  Tensor out = w.clone();
  const int64_t rows = w.dim(0), cols = w.dim(1);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) out.data<float>()[r * cols + c] = float(double(w.data<float>()[r * cols + c]) * s[size_t(transposed(n) ? c : r)]);
  return out;
}

// A constant of the graph holding one float per channel (numel K, last dim K), or nullptr.
const Tensor* per_channel(const Graph& g, const std::string& name, int64_t k) {
  const Tensor* t = name.empty() ? nullptr : g.constant(name);
  return t && t->dtype() == DType::Float32 && t->numel() == k && t->rank() >= 1 && t->dims().back() == k ? t : nullptr;
}

// v / s per channel, as a new initializer beside v's name.
std::string divided(Graph& g, const std::string& name, const Tensor& v, const std::vector<double>& s) {
  Tensor out = v.clone();
  for (int64_t j = 0; j < v.numel(); ++j) out.data<float>()[j] = float(double(v.data<float>()[j]) / s[size_t(j)]);
  return add_initializer(g, name + "_smoothed", out);
}

}  // namespace

SmoothQuantReport smooth_quant(Graph& g, RangeTable& table, double alpha) {
  check_argument(alpha >= 0.0 && alpha <= 1.0, "--smoothquant " + std::to_string(alpha) + ": alpha must lie in [0, 1]");
  SmoothQuantReport report;
  fold_constants(g);  // as the Q/DQ pass does first: exporters share equal parameters through Identity
  // Groups: each activation and the Linears that multiply it (in graph order).
  std::map<std::string, std::vector<size_t>> groups;
  std::vector<std::string> order;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.inputs.empty() || !smoothable(g, n, n.inputs[0]) || g.constant(n.inputs[0])) continue;
    if (!groups.count(n.inputs[0])) order.push_back(n.inputs[0]);
    groups[n.inputs[0]].push_back(i);
  }
  std::map<size_t, std::vector<Node>> before;  // Mul nodes, each placed before the first Linear of its group
  for (const std::string& x : order) {
    const std::vector<size_t>& members = groups[x];
    auto range = table.activations.find(x);
    if (range == table.activations.end() || range->second.channel_amax.empty()) {
      report.skipped.emplace_back(x, "the range table has no per-channel maxima for it (calibrate it without --resume, --merge or MPI)");
      continue;
    }
    const std::vector<double>& a = range->second.channel_amax;
    const int64_t k = int64_t(a.size());
    bool fits = true;
    for (size_t i : members) fits = fits && input_channels(g.nodes[i], *g.constant(g.nodes[i].inputs[1])) == k;
    if (!fits) {
      report.skipped.emplace_back(x, "its channel count differs from its weights' input channels");
      continue;
    }
    std::vector<double> w(size_t(k), 0.0), s(size_t(k), 1.0);
    for (size_t i : members) weight_channel_max(g.nodes[i], *g.constant(g.nodes[i].inputs[1]), w);
    for (int64_t j = 0; j < k; ++j)
      if (a[size_t(j)] > 0 && w[size_t(j)] > 0)
        s[size_t(j)] = std::clamp(std::pow(a[size_t(j)], alpha) / std::pow(w[size_t(j)], 1.0 - alpha), 1e-5, 1e5);
    for (size_t i : members) {
      Node& n = g.nodes[i];
      n.inputs[1] = add_initializer(g, n.inputs[1] + "_smoothed", scaled_weight(n, *g.constant(n.inputs[1]), s));
    }
    // X' = X / s where X is made, when the group alone reads X; else a Mul in front of the group.
    const GraphIndex index(g);
    const bool alone = !index.is_graph_output(x) && index.readers(x).size() == members.size();
    const int p = index.producer(x);
    std::string where;
    if (alone && p >= 0 && g.nodes[size_t(p)].op_type == "LayerNormalization" && g.nodes[size_t(p)].domain.empty() &&
        per_channel(g, g.nodes[size_t(p)].inputs[1], k) && (!g.nodes[size_t(p)].has_input(2) || per_channel(g, g.nodes[size_t(p)].inputs[2], k))) {
      Node& ln = g.nodes[size_t(p)];
      ln.inputs[1] = divided(g, ln.inputs[1], *g.constant(ln.inputs[1]), s);
      if (ln.has_input(2)) ln.inputs[2] = divided(g, ln.inputs[2], *g.constant(ln.inputs[2]), s);
      where = "into LayerNormalization '" + ln.name + "'";
    } else if (alone && p >= 0 && g.nodes[size_t(p)].op_type == "Add" && g.nodes[size_t(p)].domain.empty() && g.nodes[size_t(p)].inputs.size() == 2) {
      // The decomposed LayerNorm's affine: Add(Mul(·, γ), β).
      Node& add = g.nodes[size_t(p)];
      const int bi = per_channel(g, add.inputs[1], k) ? 1 : per_channel(g, add.inputs[0], k) ? 0 : -1;
      const int m = bi < 0 ? -1 : index.producer(add.inputs[size_t(1 - bi)]);
      const bool affine = m >= 0 && g.nodes[size_t(m)].op_type == "Mul" && index.sole_reader(add.inputs[size_t(1 - bi)]) == p &&
                          (per_channel(g, g.nodes[size_t(m)].inputs[0], k) || per_channel(g, g.nodes[size_t(m)].inputs[1], k));
      if (affine) {
        Node& mul = g.nodes[size_t(m)];
        const size_t gi = per_channel(g, mul.inputs[1], k) ? 1 : 0;
        mul.inputs[gi] = divided(g, mul.inputs[gi], *g.constant(mul.inputs[gi]), s);
        add.inputs[size_t(bi)] = divided(g, add.inputs[size_t(bi)], *g.constant(add.inputs[size_t(bi)]), s);
        where = "into the LayerNorm affine Mul '" + mul.name + "' and Add '" + add.name + "'";
      }
    }
    std::string smoothed = x;
    if (where.empty()) {
      std::vector<double> inv(s.size());
      for (size_t j = 0; j < s.size(); ++j) inv[j] = 1.0 / s[j];
      Tensor factors(DType::Float32, {k});
      for (int64_t j = 0; j < k; ++j) factors.data<float>()[j] = float(inv[size_t(j)]);
      Node mul;
      mul.op_type = "Mul", mul.name = x + "_SmoothQuant";
      smoothed = x + "_smoothed";
      for (int i = 1; index.producer(smoothed) >= 0 || !index.readers(smoothed).empty() || g.constant(smoothed); ++i)
        smoothed = x + "_smoothed_" + std::to_string(i);
      mul.inputs = {x, add_initializer(g, x + "_smooth_factors", factors)};
      mul.outputs = {smoothed};
      for (size_t i : members) g.nodes[i].inputs[0] = smoothed;
      before[members.front()].push_back(mul);
      where = "by a Mul in front of them";
    }
    // The smoothed activation's range, from the same per-channel maxima (the max method).
    TensorRange r = range->second;
    r.channel_amax.assign(size_t(k), 0.0);
    double amax = 0;
    for (int64_t j = 0; j < k; ++j) amax = std::max(amax, r.channel_amax[size_t(j)] = a[size_t(j)] / s[size_t(j)]);
    r.descriptor.tensor = smoothed;
    r.descriptor.amax = {amax};
    r.descriptor.method = "max";
    r.stats.max_abs = amax, r.stats.max = std::min(r.stats.max, amax), r.stats.min = std::max(r.stats.min, -amax);
    r.clipped = 0;
    table.activations[smoothed] = r;
    report.smoothed.push_back(x + ": " + std::to_string(members.size()) + " " + g.nodes[members.front()].op_type + ", " + where);
  }
  if (!before.empty()) {
    std::vector<Node> nodes;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      if (auto it = before.find(i); it != before.end()) nodes.insert(nodes.end(), it->second.begin(), it->second.end());
      nodes.push_back(std::move(g.nodes[i]));
    }
    g.nodes = std::move(nodes);
  }
  drop_unused_initializers(g);
  return report;
}

}  // namespace q8
