// ReduceMean → Sub → Pow → ReduceMean → Add(epsilon) → Sqrt → Div → Mul(gamma) [→ Add(beta)]
// into LayerNormalization (transformer_fusions.h).
#include "engine/passes/fusion.h"
#include "engine/passes/transformer_fusions.h"

namespace q8 {

namespace {

// A ReduceMean over the last axis alone, keeping it (axes as an attribute, or from opset 18 a
// constant input).
bool is_mean_over_last_axis(const GraphIndex& index, const Node& n) {
  if (!is_op(n, "ReduceMean") || n.inputs.empty() || n.attr_int("keepdims", 1) != 1) return false;
  std::vector<int64_t> axes = n.attr_ints("axes");
  if (n.has_input(1)) {
    const Tensor* t = index.constant(n.inputs[1]);
    if (!t || t->dtype() != DType::Int64) return false;
    axes.assign(t->data<int64_t>(), t->data<int64_t>() + t->numel());
  }
  return axes == std::vector<int64_t>{-1};
}

// value's constant float32 vector (rank 1), else nullptr.
const Tensor* constant_vector(const GraphIndex& index, const std::string& value) {
  const Tensor* t = index.constant(value);
  return t && t->dtype() == DType::Float32 && t->rank() == 1 ? t : nullptr;
}

std::optional<FusedChain> match(const GraphIndex& index, int mean1) {
  const Node& m1 = index.node(mean1);
  if (!is_mean_over_last_axis(index, m1)) return std::nullopt;
  const std::string& x = m1.inputs[0];
  const int sub = sole_reader_op(index, m1.outputs[0], "Sub");
  if (sub < 0 || index.node(sub).inputs != std::vector<std::string>{x, m1.outputs[0]}) return std::nullopt;
  const std::string& d = index.node(sub).outputs[0];
  // d is read twice: squared (Pow(d, 2), or Mul(d, d), which reads it twice), and divided by the
  // deviation; nothing else reads it.
  if (index.is_graph_output(d)) return std::nullopt;
  const std::vector<int>& readers = index.readers(d);
  int square = -1, div = -1;
  for (int r : readers) {
    const Node& n = index.node(r);
    if (n.inputs.size() != 2) return std::nullopt;
    if (is_op(n, "Div") && n.inputs[0] == d && n.inputs[1] != d) div = r;
    else if (is_op(n, "Pow") && n.inputs[0] == d && constant_scalar(index, n.inputs[1]) == 2.0f) square = r;
    else if (is_op(n, "Mul") && n.inputs[0] == d && n.inputs[1] == d) square = r;
    else return std::nullopt;
  }
  if (square < 0 || div < 0 || readers.size() != (index.node(square).op_type == "Mul" ? 3u : 2u)) return std::nullopt;
  const int mean2 = index.sole_reader(index.node(square).outputs[0]);
  if (mean2 < 0 || !is_mean_over_last_axis(index, index.node(mean2))) return std::nullopt;
  const int add_eps = sole_reader_op(index, index.node(mean2).outputs[0], "Add");
  if (add_eps < 0) return std::nullopt;
  const std::optional<float> epsilon = constant_scalar(index, other_input(index.node(add_eps), index.node(mean2).outputs[0]));
  if (!epsilon || !(*epsilon >= 0.0f)) return std::nullopt;
  const int sqrt = sole_reader_op(index, index.node(add_eps).outputs[0], "Sqrt");
  if (sqrt < 0 || index.sole_reader(index.node(sqrt).outputs[0]) != div || index.node(div).inputs[1] != index.node(sqrt).outputs[0])
    return std::nullopt;
  const int mul = sole_reader_op(index, index.node(div).outputs[0], "Mul");
  if (mul < 0) return std::nullopt;
  const std::string gamma = other_input(index.node(mul), index.node(div).outputs[0]);
  if (gamma.empty() || !constant_vector(index, gamma)) return std::nullopt;
  std::vector<int> nodes{mean1, sub, square, mean2, add_eps, sqrt, div, mul};
  std::string beta, tail = index.node(mul).outputs[0];
  if (const int add = sole_reader_op(index, tail, "Add"); add >= 0) {
    beta = other_input(index.node(add), tail);
    const Tensor* b = beta.empty() ? nullptr : constant_vector(index, beta);
    if (b && b->numel() == constant_vector(index, gamma)->numel()) {
      nodes.push_back(add);
      tail = index.node(add).outputs[0];
    } else {
      beta.clear();
    }
  }
  Node ln;
  ln.name = m1.name.empty() ? tail : m1.name;
  ln.op_type = "LayerNormalization";
  ln.inputs = {x, gamma};
  if (!beta.empty()) ln.inputs.push_back(beta);
  ln.outputs = {tail};
  ln.attributes["axis"] = Attribute::of_int(-1);
  ln.attributes["epsilon"] = Attribute::of_float(*epsilon);
  return FusedChain{nodes, std::move(ln)};
}

}  // namespace

int fuse_layer_normalization(Graph& graph) { return fuse_matches(graph, match); }

}  // namespace q8
