#include "engine/ops/value_types.h"

#include <algorithm>

#include "engine/ops/traits.h"

namespace q8 {

namespace {
DType declared(const GraphIndex& index, const std::string& value) {
  if (const ValueInfo* v = index.declared(value); v && v->dtype != DType::Undefined) return v->dtype;
  if (const Tensor* t = index.constant(value)) return t->dtype();
  return DType::Undefined;
}
}  // namespace

DType ValueTypes::of(const std::string& value) const {
  if (auto it = known_.find(value); it != known_.end()) return it->second;
  known_[value] = DType::Undefined;  // a cycle in a malformed graph decides nothing
  DType d = declared(index_, value);
  const int p = index_.producer(value);
  if (d == DType::Undefined && p >= 0) {
    const Node& n = index_.node(p);
    d = produced(n, size_t(std::find(n.outputs.begin(), n.outputs.end(), value) - n.outputs.begin()));
  }
  return known_[value] = d;
}

DType ValueTypes::produced(const Node& n, size_t slot) const {
  auto input = [&](size_t i) { return i < n.inputs.size() && !n.inputs[i].empty() ? of(n.inputs[i]) : DType::Undefined; };
  const OpTraits* traits = find_traits(n);
  if (!traits) return DType::Undefined;  // an op q8 does not register: nothing decides
  switch (slot == 0 ? traits->output : traits->other_outputs) {
    case Output::Input0: return input(0);
    case Output::Input1: return input(1);
    case Output::Input2: return input(2);
    case Output::Bool: return DType::Bool;
    case Output::Int64: return DType::Int64;
    case Output::Float32: return DType::Float32;
    case Output::CastTo: return dtype_from_onnx(int(n.attr_int("to", 0)), n.describe() + " attribute 'to'");
    case Output::ZeroPoint: return n.has_input(2) ? input(2) : DType::Uint8;
    case Output::ValueAttribute: {
      const Tensor* t = n.attr_tensor("value");
      return t ? t->dtype() : DType::Float32;
    }
    case Output::Subgraph: {
      const Graph* g = n.attr_graph("then_branch");
      const size_t at = g ? slot : slot + 1;  // Loop's body: cond comes first
      if (!g) g = n.attr_graph("body");
      return g && at < g->outputs.size() ? g->outputs[at].dtype : DType::Undefined;
    }
    case Output::DtypeAttribute:
      return n.has("dtype") ? dtype_from_onnx(int(n.attr_int("dtype", 0)), n.describe() + " attribute 'dtype'") : input(0);
    case Output::Int8: return DType::Int8;
    case Output::Int8ByMultiplier: return n.has("multiplier") ? DType::Int8 : DType::Float32;
    case Output::Int8OrBias: return input(2) == DType::Float32 && !n.has("y_scale") ? DType::Float32 : DType::Int8;
  }
  return DType::Undefined;
}

}  // namespace q8
