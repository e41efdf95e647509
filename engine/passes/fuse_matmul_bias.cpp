// MatMul(A, W) → Add(·, bias) [→ Relu] into q8.fused MatMulBias (transformer_fusions.h).
#include "engine/passes/fusion.h"
#include "engine/passes/transformer_fusions.h"

namespace q8 {

namespace {

std::optional<FusedChain> match(const GraphIndex& index, int matmul) {
  const Node& mm = index.node(matmul);
  if (!is_op(mm, "MatMul") || mm.inputs.size() != 2) return std::nullopt;
  const Tensor* w = index.constant(mm.inputs[1]);
  if (!w || w->dtype() != DType::Float32 || w->rank() != 2 || index.constant(mm.inputs[0])) return std::nullopt;
  const int add = sole_reader_op(index, mm.outputs[0], "Add");
  if (add < 0) return std::nullopt;
  const std::string bias = other_input(index.node(add), mm.outputs[0]);
  const Tensor* b = bias.empty() ? nullptr : index.constant(bias);
  if (!b || b->dtype() != DType::Float32 || b->rank() != 1 || b->dim(0) != w->dim(1)) return std::nullopt;
  Node fused;
  fused.name = mm.name.empty() ? index.node(add).outputs[0] : mm.name;
  fused.op_type = "MatMulBias";
  fused.domain = kFusedFloatDomain;
  fused.inputs = {mm.inputs[0], mm.inputs[1], bias};
  std::vector<int> nodes{matmul, add};
  std::string tail = index.node(add).outputs[0];
  const int act = index.sole_reader(tail);
  if (act >= 0) {
    const Node& n = index.node(act);
    // (Not Gelu: applied to a tile's 32-value stretches of rows its vectorized function cost BERT-base's
    // FC1s 8.6 ms a run here, 4 ms as its own op over whole tensors; docs/cpu.md.)
    if (is_op(n, "Relu")) {
      fused.attributes["activation"] = Attribute::of_string(n.op_type);
      nodes.push_back(act);
      tail = n.outputs[0];
    }
  }
  fused.outputs = {tail};
  return FusedChain{nodes, std::move(fused)};
}

}  // namespace

int fuse_matmul_bias(Graph& graph) { return fuse_matches(graph, match); }

}  // namespace q8
