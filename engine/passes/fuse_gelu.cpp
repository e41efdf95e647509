// x · ½ · (1 + erf(x / √2)), as exporters write it, into Gelu (transformer_fusions.h).
#include <cmath>

#include "engine/passes/fusion.h"
#include "engine/passes/transformer_fusions.h"

namespace q8 {

namespace {

// Mul(value, ½) or Mul(½, value): the node, or -1.
int half_of(const GraphIndex& index, int n, const std::string& value) {
  if (n < 0 || !is_op(index.node(n), "Mul")) return -1;
  const std::optional<float> c = constant_scalar(index, other_input(index.node(n), value));
  return c && *c == 0.5f ? n : -1;
}

std::optional<FusedChain> match(const GraphIndex& index, int erf) {
  const Node& e = index.node(erf);
  if (!is_op(e, "Erf") || e.inputs.size() != 1) return std::nullopt;
  // x / √2 or x · (1/√2)
  const int scale = index.producer(e.inputs[0]);
  if (scale < 0 || index.sole_reader(e.inputs[0]) != erf) return std::nullopt;
  const Node& s = index.node(scale);
  if (s.inputs.size() != 2) return std::nullopt;
  const bool constant_first = is_op(s, "Mul") && index.constant(s.inputs[0]);  // Mul(1/√2, x)
  const std::string& x = s.inputs[constant_first ? 1 : 0];
  const std::optional<float> c = constant_scalar(index, s.inputs[constant_first ? 0 : 1]);
  const bool scaled = c && ((is_op(s, "Div") && near(*c, std::sqrt(2.0))) || (is_op(s, "Mul") && near(*c, std::sqrt(0.5))));
  if (!scaled || index.constant(x)) return std::nullopt;
  const int plus_one = sole_reader_op(index, e.outputs[0], "Add");
  if (plus_one < 0 || constant_scalar(index, other_input(index.node(plus_one), e.outputs[0])) != 1.0f) return std::nullopt;
  const std::string& sum = index.node(plus_one).outputs[0];  // 1 + erf(x/√2)
  const int m1 = sole_reader_op(index, sum, "Mul");
  if (m1 < 0) return std::nullopt;
  std::vector<int> nodes{scale, erf, plus_one, m1};
  std::string tail;
  const std::string other = other_input(index.node(m1), sum);
  if (other == x) {  // Mul(x, sum) → Mul(·, ½)
    const int m2 = half_of(index, index.sole_reader(index.node(m1).outputs[0]), index.node(m1).outputs[0]);
    if (m2 < 0) return std::nullopt;
    nodes.push_back(m2);
    tail = index.node(m2).outputs[0];
  } else if (half_of(index, m1, sum) >= 0) {  // Mul(sum, ½) → Mul(x, ·)
    const int m2 = sole_reader_op(index, index.node(m1).outputs[0], "Mul");
    if (m2 < 0 || other_input(index.node(m2), index.node(m1).outputs[0]) != x) return std::nullopt;
    nodes.push_back(m2);
    tail = index.node(m2).outputs[0];
  } else {  // Mul(Mul(x, ½), sum)
    const int h = index.producer(other);
    if (h < 0 || index.sole_reader(other) != m1 || half_of(index, h, x) < 0) return std::nullopt;
    nodes.push_back(h);
    tail = index.node(m1).outputs[0];
  }
  Node gelu;
  gelu.name = e.name.empty() ? tail : e.name;
  gelu.op_type = "Gelu";
  gelu.inputs = {x};
  gelu.outputs = {tail};
  return FusedChain{nodes, std::move(gelu)};
}

}  // namespace

int fuse_gelu(Graph& graph) { return fuse_matches(graph, match); }

}  // namespace q8
