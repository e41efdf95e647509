// The GELU a weighted op's epilogue takes (docs/quantization.md, "Activations in the epilogue"): an ONNX
// Gelu, or x · 0.5 · (1 + Erf(x / √2)) as exporters write it before opset 20, in the orders they
// write it, read by nothing else.
#include <cmath>

#include "engine/plan/rules/rule.h"

namespace q8 {

namespace {

// Whether constant is a float32 scalar (any rank, one element) within 1e-6 relative of want.
bool scalar_near(const QdqGraph& g, const std::string& constant, double want) {
  const Tensor* t = g.constant(constant);
  if (!t || t->dtype() != DType::Float32 || t->numel() != 1) return false;
  return std::fabs(double(t->data<float>()[0]) - want) <= 1e-6 * std::fabs(want);
}

// Node n (two inputs) reads `value` and a scalar constant near want, in either order.
bool reads_with_scalar(const QdqGraph& g, const Node& n, const std::string& value, double want) {
  if (n.inputs.size() != 2) return false;
  return (n.inputs[0] == value && scalar_near(g, n.inputs[1], want)) || (n.inputs[1] == value && scalar_near(g, n.inputs[0], want));
}

std::optional<EpilogueActivation> erf_form(const QdqGraph& g, const std::string& x) {
  if (g.is_graph_output(x)) return std::nullopt;
  const std::vector<int>& readers = g.readers(x);
  if (readers.size() != 2 || readers[0] == readers[1]) return std::nullopt;
  for (int turn = 0; turn < 2; ++turn) {
    const int d = readers[size_t(turn)], m = readers[size_t(1 - turn)];
    const Node& dn = g.node(d);
    const bool scaled = dn.domain.empty() && dn.outputs.size() == 1 &&
                        ((dn.op_type == "Div" && dn.inputs.size() == 2 && dn.inputs[0] == x && scalar_near(g, dn.inputs[1], std::sqrt(2.0))) ||
                         (dn.op_type == "Mul" && reads_with_scalar(g, dn, x, std::sqrt(0.5))));
    if (!scaled) continue;
    const int e = sole_reader_of(g, dn.outputs[0], "Erf");
    if (e < 0) continue;
    const int a = sole_reader_of(g, g.node(e).outputs[0], "Add");
    if (a < 0 || !reads_with_scalar(g, g.node(a), g.node(e).outputs[0], 1.0)) continue;
    const std::string& one_plus = g.node(a).outputs[0];
    const Node& mn = g.node(m);
    if (!mn.domain.empty() || mn.op_type != "Mul" || mn.outputs.size() != 1) continue;
    EpilogueActivation chain{{d, e, a, m}, "", "Gelu", "none"};
    if (reads_with_scalar(g, mn, x, 0.5)) {  // (x · 0.5) · (1 + erf)
      const int p = sole_reader_of(g, mn.outputs[0], "Mul");
      if (p < 0 || p != sole_reader_of(g, one_plus, "Mul") || !reads_pair(g.node(p), mn.outputs[0], one_plus)) continue;
      chain.nodes.push_back(p), chain.output = g.node(p).outputs[0];
    } else if (reads_pair(mn, x, one_plus) && g.sole_reader(one_plus) == m) {  // (x · (1 + erf)) · 0.5
      const int h = sole_reader_of(g, mn.outputs[0], "Mul");
      if (h < 0 || !reads_with_scalar(g, g.node(h), mn.outputs[0], 0.5)) continue;
      chain.nodes.push_back(h), chain.output = g.node(h).outputs[0];
    } else {  // x · ((1 + erf) · 0.5)
      const int h = sole_reader_of(g, one_plus, "Mul");
      if (h < 0 || !reads_with_scalar(g, g.node(h), one_plus, 0.5) || !reads_pair(mn, x, g.node(h).outputs[0]) ||
          g.sole_reader(g.node(h).outputs[0]) != m)
        continue;
      chain.nodes = {d, e, a, h, m}, chain.output = mn.outputs[0];
    }
    return chain;
  }
  return std::nullopt;
}

}  // namespace

std::optional<EpilogueActivation> follow_gelu(const QdqGraph& g, const std::string& value) {
  if (const int r = sole_reader_of(g, value, "Gelu"); r >= 0) {
    const std::string approximate = g.node(r).attr_string("approximate", "none");
    if (approximate != "none" && approximate != "tanh") return std::nullopt;
    return EpilogueActivation{{r}, g.node(r).outputs[0], "Gelu", approximate};
  }
  return erf_form(g, value);
}

}  // namespace q8
