#include "engine/plan/qdq_graph.h"

#include <cmath>

namespace q8 {

bool QdqGraph::is_int8(const std::string& value) const {
  if (const Tensor* t = graph().constant(value)) return t->dtype() == DType::Int8;
  if (const ValueInfo* in = graph().find_input(value)) return in->dtype == DType::Int8;
  const int p = producer(value);
  if (p < 0) return false;
  const Node& n = node(p);
  if (n.op_type != "QuantizeLinear" || !n.domain.empty() || n.inputs.size() < 3) return false;
  const Tensor* zp = graph().constant(n.inputs[2]);
  return zp && zp->dtype() == DType::Int8;
}

std::optional<QuantParams> QdqGraph::params(const Node& qdq, std::string& why) const {
  const bool dequantize = qdq.op_type == "DequantizeLinear";
  if (qdq.inputs.size() < 2) {
    why = qdq.describe() + " has no scale";
    return std::nullopt;
  }
  const Tensor* scale = graph().constant(qdq.inputs[1]);
  if (!scale || scale->dtype() != DType::Float32 || scale->rank() > 1 || scale->numel() == 0) {
    why = qdq.describe() + ": scale is not a constant float32 scalar or 1-D tensor";
    return std::nullopt;
  }
  QuantParams p;
  p.axis = qdq.attr_int("axis", 1);
  p.scales.assign(scale->data<float>(), scale->data<float>() + scale->numel());
  for (float s : p.scales)
    if (!(std::isfinite(s) && s > 0.0f)) {
      why = qdq.describe() + ": scale " + std::to_string(s) + " is not positive and finite";
      return std::nullopt;
    }
  const Tensor* zp = qdq.inputs.size() > 2 && !qdq.inputs[2].empty() ? graph().constant(qdq.inputs[2]) : nullptr;
  if (qdq.inputs.size() > 2 && !qdq.inputs[2].empty() && !zp) {
    why = qdq.describe() + ": zero point is not constant";
    return std::nullopt;
  }
  if (zp) {
    if (zp->dtype() != DType::Int8) {
      why = qdq.describe() + ": zero point is " + std::string(dtype_name(zp->dtype())) + "; q8 plans are int8";
      return std::nullopt;
    }
    for (int64_t i = 0; i < zp->numel(); ++i)
      if (zp->data<int8_t>()[i] != 0) {
        why = qdq.describe() + ": zero point " + std::to_string(zp->data<int8_t>()[i]) + " is not 0; q8 plans are symmetric";
        return std::nullopt;
      }
  } else if (!dequantize) {
    why = qdq.describe() + ": no zero point, so its output is uint8; q8 plans are int8";
    return std::nullopt;
  }
  if (dequantize && !is_int8(qdq.inputs[0])) {
    why = qdq.describe() + ": its input is not known to be int8";
    return std::nullopt;
  }
  return p;
}

int QdqGraph::per_tensor_dequantize(const std::string& value, QuantParams& params_out, std::string& why) const {
  const int p = producer(value);
  if (p < 0 || node(p).op_type != "DequantizeLinear" || !node(p).domain.empty()) {
    why = "'" + value + "' does not come from a DequantizeLinear";
    return -1;
  }
  const std::optional<QuantParams> q = params(node(p), why);
  if (!q) return -1;
  if (!q->per_tensor()) {
    why = node(p).describe() + " is per channel where a per-tensor activation is needed";
    return -1;
  }
  params_out = *q;
  return p;
}

}  // namespace q8
