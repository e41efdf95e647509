#include "eval/bias_correction.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/exec/executor.h"
#include "engine/ir/graph_index.h"
#include "engine/passes/graph_constants.h"

namespace q8 {

namespace {

constexpr const char* kTwin = "/q8_fp32_twin";

bool corrects(const Node& n) { return n.domain.empty() && (n.op_type == "Conv" || n.op_type == "ConvTranspose" || n.op_type == "Gemm"); }

// The value Q → DQ reads, when `dq` is the output of DequantizeLinear(QuantizeLinear(v)); "" else.
std::string behind_qdq(const GraphIndex& index, const std::string& dq) {
  const int d = index.producer(dq);
  if (d < 0 || index.node(d).op_type != "DequantizeLinear") return "";
  const int q = index.producer(index.node(d).inputs[0]);
  if (q < 0 || index.node(q).op_type != "QuantizeLinear") return "";
  return index.node(q).inputs[0];
}

// A bias the shift can be added to: absent, or a constant float32 vector of the output channels.
bool bias_fits(const Graph& g, const Node& n) {
  if (!n.has_input(2)) return true;
  const Tensor* b = g.constant(n.inputs[2]);
  return b && b->dtype() == DType::Float32 && b->rank() == 1;
}

}  // namespace

BiasShifts measure_bias_shifts(const Graph& probe, BatchSource& stream) {
  // The probe with each corrected layer followed by its FP32 twin: the same input before its Q/DQ,
  // the FP32 weight before its Q/DQ, the same bias and attributes.
  Graph g = probe;
  const GraphIndex index(probe);
  std::vector<Node> nodes;
  std::map<std::string, size_t> layer;  // node name → slot in sums
  for (const Node& n : probe.nodes) {
    nodes.push_back(n);
    if (!corrects(n) || n.inputs.size() < 2 || n.outputs.empty() || !bias_fits(probe, n)) continue;
    const std::string x = behind_qdq(index, n.inputs[0]), w = behind_qdq(index, n.inputs[1]);
    if (x.empty() || w.empty() || !probe.constant(w) || probe.constant(x)) continue;
    Node twin = n;
    twin.name = n.name + kTwin;
    twin.inputs[0] = x, twin.inputs[1] = w;
    twin.outputs = {n.outputs[0] + kTwin};
    nodes.push_back(twin);
    layer.emplace(n.name, layer.size());
  }
  g.nodes = std::move(nodes);
  std::vector<std::vector<double>> sums(layer.size());
  std::vector<int64_t> counts(layer.size(), 0);
  std::map<size_t, Tensor> pending;  // each layer's quantized output until its twin has run
  Executor exec(g);
  exec.set_hook([&](const Node& n, size_t, const std::vector<Tensor>& outs) {
    const bool twin = n.name.size() > std::char_traits<char>::length(kTwin) && n.name.ends_with(kTwin);
    const auto it = layer.find(twin ? n.name.substr(0, n.name.size() - std::char_traits<char>::length(kTwin)) : n.name);
    if (it == layer.end() || outs.empty()) return;
    if (!twin) {
      pending[it->second] = outs[0].clone();
      return;
    }
    const Tensor& y = outs[0];
    const Tensor& yq = pending.at(it->second);
    check(y.dims() == yq.dims() && y.rank() >= 2 && y.dtype() == DType::Float32, n.name + ": the FP32 twin's output differs in shape");
    const int64_t batch = y.dim(0), channels = y.dim(1), inner = y.numel() / std::max<int64_t>(1, batch * channels);
    std::vector<double>& s = sums[it->second];
    s.resize(size_t(channels), 0.0);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t c = 0; c < channels; ++c) {
        const float* p = y.data<float>() + (b * channels + c) * inner;
        const float* q = yq.data<float>() + (b * channels + c) * inner;
        double d = 0;
        for (int64_t i = 0; i < inner; ++i) d += double(p[i]) - double(q[i]);
        s[size_t(c)] += d;
      }
    counts[it->second] += batch * inner;
    pending.erase(it->second);
  });
  BiasShifts out;
  while (auto batch = stream.next()) {
    exec.run(batch->inputs);
    out.samples += batch->count;
  }
  check(out.samples > 0, "bias correction: no samples to measure on");
  for (const auto& [name, k] : layer) {
    if (!counts[k]) continue;
    std::vector<double>& shift = out.shifts[name];
    for (double s : sums[k]) shift.push_back(s / double(counts[k]));
  }
  return out;
}

double apply_bias_shifts(Graph& g, const BiasShifts& shifts) {
  double largest = 0;
  for (Node& n : g.nodes) {
    const auto it = shifts.shifts.find(n.name);
    if (it == shifts.shifts.end() || !corrects(n) || !bias_fits(g, n)) continue;
    const std::vector<double>& shift = it->second;
    const int64_t channels = int64_t(shift.size());
    const double beta = n.op_type == "Gemm" ? n.attr_float("beta", 1.0f) : 1.0;
    if (beta == 0) continue;
    Tensor b(DType::Float32, {channels});
    const Tensor* old = n.has_input(2) ? g.constant(n.inputs[2]) : nullptr;
    if (old && old->numel() != channels && old->numel() != 1) continue;
    for (int64_t c = 0; c < channels; ++c) {
      const double before = old ? double(old->data<float>()[old->numel() == 1 ? 0 : c]) : 0.0;
      b.data<float>()[c] = float(before + shift[size_t(c)] / beta);
      largest = std::max(largest, std::fabs(shift[size_t(c)]));
    }
    const std::string name = add_initializer(g, (n.has_input(2) ? n.inputs[2] : n.name + "_bias") + "_corrected", std::move(b));
    if (n.inputs.size() < 3) n.inputs.resize(3);
    n.inputs[2] = name;
  }
  return largest;
}

}  // namespace q8
