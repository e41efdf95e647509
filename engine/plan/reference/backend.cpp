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

class Int8ReferenceBackend final : public Backend {
 public:
  std::string_view name() const override { return "int8-reference"; }
  bool supports(const Node& node) const override { return find_int8_op(node) != nullptr; }
  std::unique_ptr<PreparedNode> prepare(const Node& node, const OpContext& ctx) const override {
    const OpInfo* info = find_int8_op(node);
    check(info != nullptr, "op " + node.domain + "." + node.op_type + " is not an INT8 reference op");
    return prepared_op(info->create(node, ctx));
  }
};
}  // namespace

const Backend& int8_reference_backend() {
  static const Int8ReferenceBackend backend;
  return backend;
}

}  // namespace q8
