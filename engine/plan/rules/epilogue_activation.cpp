// The activations a weighted op's epilogue takes besides GELU (docs/quantization.md, "Activations
// in the epilogue"): Swish as exporters write nn.SiLU, Mul(x, Sigmoid(x)); ONNX HardSwish; Sigmoid.
#include "engine/plan/rules/rule.h"

namespace q8 {

int sole_reader_of(const QdqGraph& g, const std::string& value, const char* op_type) {
  const int r = g.sole_reader(value);
  if (r < 0) return -1;
  const Node& n = g.node(r);
  return n.domain.empty() && n.op_type == op_type && n.outputs.size() == 1 ? r : -1;
}

bool reads_pair(const Node& n, const std::string& a, const std::string& b) {
  return n.inputs.size() == 2 && ((n.inputs[0] == a && n.inputs[1] == b) || (n.inputs[0] == b && n.inputs[1] == a));
}

namespace {

// Mul(x, Sigmoid(x)) in either operand order, x read by those two nodes alone and the Sigmoid's
// output by the Mul alone.
std::optional<EpilogueActivation> swish(const QdqGraph& g, const std::string& x) {
  const std::vector<int>& readers = g.readers(x);
  if (g.is_graph_output(x) || readers.size() != 2 || readers[0] == readers[1]) return std::nullopt;
  for (int turn = 0; turn < 2; ++turn) {
    const int s = readers[size_t(turn)], m = readers[size_t(1 - turn)];
    const Node& sn = g.node(s);
    const Node& mn = g.node(m);
    if (!sn.domain.empty() || sn.op_type != "Sigmoid" || sn.outputs.size() != 1 || !mn.domain.empty() || mn.op_type != "Mul" ||
        mn.outputs.size() != 1 || g.sole_reader(sn.outputs[0]) != m)
      continue;
    if (reads_pair(mn, x, sn.outputs[0]))
      return EpilogueActivation{{s, m}, mn.outputs[0], "Swish", "none"};
  }
  return std::nullopt;
}

}  // namespace

std::optional<EpilogueActivation> follow_epilogue_activation(const QdqGraph& g, const std::string& value) {
  if (std::optional<EpilogueActivation> gelu = follow_gelu(g, value)) return gelu;
  if (std::optional<EpilogueActivation> s = swish(g, value)) return s;
  if (g.is_graph_output(value)) return std::nullopt;
  for (const char* op : {"HardSwish", "Sigmoid"})
    if (const int r = sole_reader_of(g, value, op); r >= 0) return EpilogueActivation{{r}, g.node(r).outputs[0], op, "none"};
  return std::nullopt;
}

}  // namespace q8
