// DQ(x_0) … DQ(x_n) → Concat → Q  becomes one QConcat: each input mapped through its 256-entry
// table T_i[v] = Q_out(DQ_i(v)), exact (docs/quantization.md, "Concat with different scales").
#include "engine/plan/reference/backend.h"
#include "engine/plan/rules/rule.h"

namespace q8 {

std::optional<Fusion> lower_concat(const QdqGraph& g, int anchor, std::string& why) {
  const Node& concat = g.node(anchor);
  QuantParams out;
  const int q = concat.outputs.size() == 1 ? sole_per_tensor_quantize(g, concat.outputs[0], out) : -1;
  if (q < 0) {
    why = "its output is not quantized per tensor to int8";
    return std::nullopt;
  }
  Fusion f;
  f.fused.name = concat.name;
  f.fused.domain = kInt8Domain;
  f.fused.op_type = "QConcat";
  f.fused.attributes = concat.attributes;
  f.fused.outputs = {g.node(q).outputs[0]};
  Tensor tables(DType::Int8, {int64_t(concat.inputs.size()), 256});
  for (size_t i = 0; i < concat.inputs.size(); ++i) {
    QuantParams in;
    const int d = g.per_tensor_dequantize(concat.inputs[i], in, why);
    if (d < 0) return std::nullopt;
    f.fused.inputs.push_back(g.node(d).inputs[0]);
    const std::array<int8_t, 256> t = requant_table(in.scale(), out.scale());
    std::copy(t.begin(), t.end(), tables.data<int8_t>() + i * 256);
  }
  const std::string tn = derived_name(g, concat.name + ".tables");
  f.fused.inputs.push_back(tn);
  f.initializers = {{tn, std::move(tables)}};
  f.consumed = {anchor, q};
  return f;
}

}  // namespace q8
