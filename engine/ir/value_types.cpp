#include "engine/ir/value_types.h"

#include <set>

#include "engine/onnx/tensor_proto.h"

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
  if (d == DType::Undefined && p >= 0) d = produced(index_.node(p));
  return known_[value] = d;
}

DType ValueTypes::produced(const Node& n) const {
  auto input = [&](size_t i) { return i < n.inputs.size() && !n.inputs[i].empty() ? of(n.inputs[i]) : DType::Undefined; };
  const std::string& op = n.op_type;
  if (n.domain == kInt8Domain) {
    if (op == "QConv" || op == "QConvTranspose" || op == "QGemm") return input(2) == DType::Float32 ? DType::Float32 : DType::Int8;
    return DType::Int8;
  }
  static const std::set<std::string> to_bool = {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Not", "And", "Or", "Xor",
                                                "IsNaN", "IsInf"};
  if (op == "Shape" || op == "Size" || op == "ArgMax" || op == "ArgMin" || op == "NonZero") return DType::Int64;
  if (to_bool.count(op)) return DType::Bool;
  if (op == "Cast") return dtype_from_onnx(int(n.attr_int("to", 0)), n.describe() + " attribute 'to'");
  if (op == "QuantizeLinear") return n.inputs.size() > 2 && !n.inputs[2].empty() ? input(2) : DType::Uint8;
  if (op == "DequantizeLinear") return DType::Float32;
  if (op == "ConstantOfShape") {
    const Tensor* t = n.attr_tensor("value");
    return t ? t->dtype() : DType::Float32;
  }
  if (op == "Where") return input(1);
  return input(0);
}

}  // namespace q8
