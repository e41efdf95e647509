#include "engine/passes/equalize_channels.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "engine/ir/graph_index.h"
#include "engine/passes/fold_batch_norm.h"
#include "engine/passes/fold_constants.h"
#include "engine/passes/graph_constants.h"

namespace q8 {

namespace {

constexpr int kMaxSweeps = 20;
constexpr double kSettled = 1.01;  // a sweep whose factors all lie within [1/1.01, 1.01] ends the search

bool is_conv(const Node& n) { return n.domain.empty() && (n.op_type == "Conv" || n.op_type == "ConvTranspose"); }

// The float32 initializer a convolution reads at input i (rank >= 3 for the weight), or nullptr.
Tensor* weight(Graph& g, const Node& n, size_t i) {
  if (!n.has_input(i)) return nullptr;
  auto it = g.initializers.find(n.inputs[i]);
  if (it == g.initializers.end() || it->second.dtype() != DType::Float32) return nullptr;
  return i == 1 && it->second.rank() < 3 ? nullptr : &it->second;
}

// An op between P and T that keeps channel c where it is and computes f(x / s) = f(x) / s for
// s > 0, reading x as its input 0 only.
bool homogeneous(const Graph& g, const Node& n, const std::string& x, int64_t channels) {
  if (!n.domain.empty() || n.inputs.empty() || n.inputs[0] != x) return false;
  for (size_t i = 1; i < n.inputs.size(); ++i)
    if (n.inputs[i] == x) return false;
  static const std::set<std::string> kAlways = {"Relu", "LeakyRelu", "PRelu", "MaxPool", "AveragePool", "GlobalAveragePool",
                                                "GlobalMaxPool", "Identity", "Dropout"};
  if (kAlways.count(n.op_type)) return true;
  if (n.op_type == "Cast") return n.attr_int("to", 0) == 1;  // float32 to float32 (a float16 model's Casts, imported)
  if (n.op_type == "Resize") {
    const Tensor* scales = n.has_input(2) ? g.constant(n.inputs[2]) : nullptr;
    const Tensor* sizes = n.has_input(3) ? g.constant(n.inputs[3]) : nullptr;
    if (scales && scales->numel() >= 2 && scales->dtype() == DType::Float32) return scales->data<float>()[1] == 1.0f;
    if (sizes && sizes->numel() >= 2 && sizes->dtype() == DType::Int64) return sizes->data<int64_t>()[1] == channels;
    return false;
  }
  if (n.op_type == "Pad") {
    if (n.attr_string("mode", "constant") != "constant") return false;
    if (n.has_input(2)) {
      const Tensor* v = g.constant(n.inputs[2]);
      if (!v || v->dtype() != DType::Float32 || v->numel() != 1 || v->data<float>()[0] != 0.0f) return false;
    } else if (n.attr_float("value", 0.0f) != 0.0f) {
      return false;
    }
    std::vector<int64_t> pads = n.attr_ints("pads");
    if (n.has_input(1)) {
      const Tensor* p = g.constant(n.inputs[1]);
      if (!p || p->dtype() != DType::Int64 || n.has_input(3)) return false;
      pads.assign(p->data<int64_t>(), p->data<int64_t>() + p->numel());
    }
    const size_t rank = pads.size() / 2;
    return rank >= 2 && pads[1] == 0 && pads[rank + 1] == 0;  // nothing added on the channel axis
  }
  return false;
}

// Channels (axis 1) of every value whose count is known: a convolution's output from its weight, a
// declared shape, and what keeps or joins channels.
std::map<std::string, int64_t> channel_counts(Graph& g) {
  std::map<std::string, int64_t> c;
  auto declared = [&](const std::string& v) {
    const ValueInfo* d = g.declared(v);
    if (d && d->shape && d->shape->size() >= 2 && (*d->shape)[1].known()) c[v] = (*d->shape)[1].value;
  };
  for (const ValueInfo& in : g.inputs) declared(in.name);
  for (const Node& n : g.nodes) {
    if (n.outputs.empty()) continue;
    const std::string& y = n.outputs[0];
    const Tensor* w = is_conv(n) ? weight(g, n, 1) : nullptr;
    if (w && n.op_type == "Conv") {
      c[y] = w->dim(0);
    } else if (w) {
      c[y] = w->dim(1) * n.attr_int("group", 1);
    } else if (n.domain.empty() && n.op_type == "Concat" && n.attr_int("axis", 0) == 1) {
      int64_t sum = 0;
      for (const std::string& in : n.inputs) sum = (sum < 0 || !c.count(in)) ? -1 : sum + c[in];
      if (sum >= 0) c[y] = sum;
    } else if (!n.inputs.empty() && c.count(n.inputs[0]) && homogeneous(g, n, n.inputs[0], c[n.inputs[0]])) {
      c[y] = c[n.inputs[0]];
    }
    if (!c.count(y)) declared(y);
  }
  return c;
}

// Where P's channels arrive: a convolution T and the input channel of T that P's channel 0 is.
struct Reader {
  size_t node;
  int64_t offset;
};

struct Region {
  size_t producer;
  int64_t channels;
  std::vector<Reader> readers;
};

// The input channels of T: Conv W[M, C/g, k…] reads g·W.dim(1), ConvTranspose W[C, M/g, k…] reads W.dim(0).
int64_t input_channels(const Node& t, const Tensor& w) { return t.op_type == "Conv" ? w.dim(1) * t.attr_int("group", 1) : w.dim(0); }

// Calls f(element index) for every weight element of T that multiplies input channel ci.
template <typename F>
void for_input_channel(const Node& t, const Tensor& w, int64_t ci, F&& f) {
  int64_t kernel = 1;
  for (size_t i = 2; i < w.rank(); ++i) kernel *= w.dim(i);
  if (t.op_type == "ConvTranspose") {
    const int64_t row = w.dim(1) * kernel;
    for (int64_t e = 0; e < row; ++e) f(ci * row + e);
    return;
  }
  const int64_t group_in = w.dim(1), groups = t.attr_int("group", 1), per_group = w.dim(0) / groups;
  const int64_t gi = ci / group_in, j = ci % group_in;
  for (int64_t o = gi * per_group; o < (gi + 1) * per_group; ++o)
    for (int64_t k = 0; k < kernel; ++k) f((o * group_in + j) * kernel + k);
}

// The convolutions P's output reaches through homogeneous ops, or why P is left as it is.
std::string collect(Graph& g, const GraphIndex& index, const std::map<std::string, int64_t>& counts, Region& region) {
  const Node& p = g.nodes[region.producer];
  std::vector<std::pair<std::string, int64_t>> stack = {{p.outputs[0], 0}};
  std::set<std::pair<std::string, int64_t>> seen;
  while (!stack.empty()) {
    const auto [x, offset] = stack.back();
    stack.pop_back();
    if (!seen.insert({x, offset}).second) continue;
    if (index.is_graph_output(x)) return "its channels reach the graph output '" + x + "'";
    std::set<int> once(index.readers(x).begin(), index.readers(x).end());
    for (int r : once) {
      const Node& n = index.node(r);
      if (n.domain.empty() && n.op_type == "Shape") continue;
      if (n.domain.empty() && n.op_type == "Concat" && n.attr_int("axis", 0) == 1) {
        int64_t before = 0;
        for (const std::string& in : n.inputs) {
          auto c = counts.find(in);
          if (c == counts.end()) return "Concat '" + n.name + "' joins '" + in + "' whose channel count is unknown";
          if (in == x) stack.emplace_back(n.outputs[0], offset + before);
          before += c->second;
        }
        continue;
      }
      const auto known = counts.find(x);
      if (homogeneous(g, n, x, known == counts.end() ? -1 : known->second)) {
        stack.emplace_back(n.outputs[0], offset);
        continue;
      }
      const Tensor* w = is_conv(n) && n.inputs[0] == x ? weight(g, n, 1) : nullptr;
      if (w && n.inputs[1] != x && (!n.has_input(2) || n.inputs[2] != x)) {
        if (offset + region.channels > input_channels(n, *w))
          return "'" + n.name + "' reads fewer input channels than arrive";
        region.readers.push_back({size_t(r), offset});
        continue;
      }
      return "its channels reach " + n.op_type + " '" + n.name + "', which is not positively homogeneous";
    }
  }
  if (region.readers.empty()) return "no convolution reads its channels";
  return "";
}

// Gives every convolution weight and bias read by more than one node a copy of its own.
void unshare(Graph& g) {
  std::map<std::string, int> uses;
  for (const Node& n : g.nodes)
    for (const std::string& in : n.inputs) ++uses[in];
  for (Node& n : g.nodes) {
    if (!is_conv(n)) continue;
    for (size_t i : {size_t(1), size_t(2)}) {
      if (!weight(g, n, i) || uses[n.inputs[i]] < 2) continue;
      --uses[n.inputs[i]];
      n.inputs[i] = add_initializer(g, n.inputs[i] + "_equalized", g.initializers.at(n.inputs[i]).clone());
    }
  }
}

// One equalization of a region; returns the largest factor's distance from 1, as max(s, 1/s).
double equalize(Graph& g, const Region& region) {
  Node& p = g.nodes[region.producer];
  Tensor& w1 = *weight(g, p, 1);
  const int64_t channels = region.channels, per_channel = w1.numel() / channels;
  std::vector<double> r1(size_t(channels), 0.0), r2(size_t(channels), 0.0);
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t e = 0; e < per_channel; ++e) r1[size_t(c)] = std::max(r1[size_t(c)], double(std::fabs(w1.data<float>()[c * per_channel + e])));
  for (const Reader& r : region.readers) {
    const Node& t = g.nodes[r.node];
    const Tensor& w2 = *weight(g, t, 1);
    for (int64_t c = 0; c < channels; ++c)
      for_input_channel(t, w2, r.offset + c, [&](int64_t e) { r2[size_t(c)] = std::max(r2[size_t(c)], double(std::fabs(w2.data<float>()[e]))); });
  }
  double moved = 1.0;
  std::vector<double> s(size_t(channels), 1.0);
  for (size_t c = 0; c < s.size(); ++c) {
    if (r1[c] > 0 && r2[c] > 0) s[c] = std::sqrt(r1[c] / r2[c]);
    moved = std::max({moved, s[c], 1.0 / s[c]});
  }
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t e = 0; e < per_channel; ++e) w1.data<float>()[c * per_channel + e] = float(double(w1.data<float>()[c * per_channel + e]) / s[size_t(c)]);
  if (Tensor* b = weight(g, p, 2))
    for (int64_t c = 0; c < channels && c < b->numel(); ++c) b->data<float>()[c] = float(double(b->data<float>()[c]) / s[size_t(c)]);
  for (const Reader& r : region.readers) {
    const Node& t = g.nodes[r.node];
    Tensor& w2 = *weight(g, t, 1);
    for (int64_t c = 0; c < channels; ++c)
      for_input_channel(t, w2, r.offset + c, [&](int64_t e) { w2.data<float>()[e] = float(double(w2.data<float>()[e]) * s[size_t(c)]); });
  }
  return moved;
}

}  // namespace

EqualizeReport equalize_channels(Graph& g) {
  fold_batch_norm(g);
  fold_constants(g);
  unshare(g);
  EqualizeReport report;
  std::vector<Region> regions;
  {
    const GraphIndex index(g);
    const std::map<std::string, int64_t> counts = channel_counts(g);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      if (!n.domain.empty() || n.op_type != "Conv" || n.outputs.empty()) continue;
      const Tensor* w = weight(g, n, 1);
      if (!w) {
        report.skipped.emplace_back(n.name, "its weight is not a float constant");
        continue;
      }
      if (n.has_input(2) && !weight(g, n, 2)) {
        report.skipped.emplace_back(n.name, "its bias is not a float constant");
        continue;
      }
      Region region{i, w->dim(0), {}};
      const std::string why = collect(g, index, counts, region);
      if (why.empty()) {
        regions.push_back(region);
      } else {
        report.skipped.emplace_back(n.name, why);
      }
    }
  }
  std::set<size_t> readers;
  for (const Region& r : regions)
    for (const Reader& t : r.readers) readers.insert(t.node);
  report.producers = regions.size();
  report.readers = readers.size();
  for (report.sweeps = 1; report.sweeps <= kMaxSweeps && !regions.empty(); ++report.sweeps) {
    double moved = 1.0;
    for (const Region& r : regions) moved = std::max(moved, equalize(g, r));
    if (moved <= kSettled) break;
  }
  report.sweeps = std::min(report.sweeps, kMaxSweeps);
  return report;
}

}  // namespace q8
