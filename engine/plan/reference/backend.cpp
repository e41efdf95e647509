#include "engine/plan/reference/backend.h"

#include <algorithm>
#include <iterator>

namespace q8 {

#define Q8_INT8_OP(type, factory) std::unique_ptr<Op> factory(const Node&, const OpContext&);
#include "engine/plan/reference/ops.inc"
#undef Q8_INT8_OP

namespace {
constexpr OpInfo kInt8Ops[] = {
#define Q8_INT8_OP(type, factory) {#type, factory},
#include "engine/plan/reference/ops.inc"
#undef Q8_INT8_OP
};

const OpInfo* find_int8_op(const Node& node) {
  if (node.domain != kInt8Domain) return nullptr;
  auto it = std::find_if(std::begin(kInt8Ops), std::end(kInt8Ops), [&](const OpInfo& o) { return o.type == node.op_type; });
  return it == std::end(kInt8Ops) ? nullptr : &*it;
}

// "" when input i may be int8 (int8, or a type nothing decides), else why not.
std::string int8_input(const NodeView& v, size_t i, const char* what) {
  const DType t = v.input_type(i);
  if (t == DType::Int8 || t == DType::Undefined) return "";
  return std::string(what) + " is " + std::string(dtype_name(t)) + ", not int8";
}

}  // namespace

std::string int8_node_refusal(const NodeView& v) {
  const std::string& op = v.node.op_type;
  if (op == "QConv" || op == "QConvTranspose" || op == "QGemm") {
    if (!v.has_input(1) || !v.has_input(2) || !v.has_input(3)) return "needs x, w, bias and scale";
    if (std::string why = int8_input(v, 0, "x"); !why.empty()) return why;
    const Tensor* w = v.constant(1);
    if (!w || w->dtype() != DType::Int8) return "w is not a constant int8 tensor";
    const Tensor* bias = v.constant(2);
    if (!bias || (bias->dtype() != DType::Int32 && bias->dtype() != DType::Float32)) return "bias is not a constant int32 or float32 tensor";
    const Tensor* scale = v.constant(3);
    if (!scale || scale->dtype() != DType::Float32) return "scale is not a constant float32 tensor";
    if (v.has_input(4)) return int8_input(v, 4, "the residual");
    return "";
  }
  if (op == "QAdd" || op == "QMatMul") {
    if (std::string why = int8_input(v, 0, "a"); !why.empty()) return why;
    return int8_input(v, 1, "b");
  }
  if (op == "MulQuantize") {
    for (size_t i = 0; i < 2; ++i)
      if (const DType t = v.input_type(i); t != DType::Float32 && t != DType::Undefined)
        return std::string(i ? "b" : "a") + " is " + std::string(dtype_name(t)) + ", not float32";
    return "";
  }
  if (op == "QConcat") {
    const size_t n = v.node.inputs.size();
    if (n < 2) return "needs inputs and a table";
    const Tensor* tables = v.constant(n - 1);
    if (!tables || tables->dtype() != DType::Int8) return "the tables are not a constant int8 tensor";
    for (size_t i = 0; i + 1 < n; ++i)
      if (std::string why = int8_input(v, i, "an input"); !why.empty()) return why;
  }
  return "";
}

std::unique_ptr<Op> create_int8_reference_op(const NodeView& view) {
  const OpInfo* info = find_int8_op(view.node);
  return info ? info->create(view.node, view.op_context()) : nullptr;
}

namespace {

class Int8ReferenceBackend final : public Backend {
 public:
  std::string_view name() const override { return "int8-reference"; }
  std::vector<OpKey> op_types() const override {
    std::vector<OpKey> out;
    for (const OpInfo& op : kInt8Ops) out.push_back({kInt8Domain, std::string(op.type)});
    return out;
  }
  Support supports(const NodeView& view) const override {
    if (!find_int8_op(view.node)) return Support::no();
    const std::string why = int8_node_refusal(view);
    return why.empty() ? Support::yes() : Support::no(why);
  }
  std::unique_ptr<PreparedNode> create(const NodeView& view) const override {
    std::unique_ptr<Op> op = create_int8_reference_op(view);
    check(op != nullptr, "op " + view.node.domain + "." + view.node.op_type + " is not an INT8 reference op");
    return prepared_op(std::move(op));
  }
};
}  // namespace

const Backend& int8_reference_backend() {
  static const Int8ReferenceBackend backend;
  return backend;
}

}  // namespace q8
