#include "engine/plan/cpu_int8/backend.h"

#include <algorithm>
#include <iterator>

#include "engine/plan/reference/backend.h"

namespace q8 {

#define Q8_CPU_INT8_OP(type, factory) std::unique_ptr<Op> factory(const Node&, std::unique_ptr<Op> reference);
#include "engine/plan/cpu_int8/ops.inc"
#undef Q8_CPU_INT8_OP

namespace {

struct CpuInt8Op {
  std::string_view type;
  std::unique_ptr<Op> (*create)(const Node&, std::unique_ptr<Op>);
};

constexpr CpuInt8Op kOps[] = {
#define Q8_CPU_INT8_OP(type, factory) {#type, factory},
#include "engine/plan/cpu_int8/ops.inc"
#undef Q8_CPU_INT8_OP
};

const CpuInt8Op* find(const Node& node) {
  if (node.domain != kInt8Domain) return nullptr;
  auto it = std::find_if(std::begin(kOps), std::end(kOps), [&](const CpuInt8Op& o) { return o.type == node.op_type; });
  return it == std::end(kOps) ? nullptr : &*it;
}

class CpuInt8Backend final : public Backend {
 public:
  std::string_view name() const override { return "cpu-int8"; }
  std::vector<OpKey> op_types() const override {
    std::vector<OpKey> out;
    for (const CpuInt8Op& op : kOps) out.push_back({kInt8Domain, std::string(op.type)});
    return out;
  }
  Support supports(const NodeView& view) const override {
    if (!find(view.node)) return Support::no();
    if (const std::string why = int8_node_refusal(view); !why.empty()) return Support::no(why);
    return Support::yes();
  }
  std::unique_ptr<PreparedNode> create(const NodeView& view) const override {
    const CpuInt8Op* op = find(view.node);
    check(op != nullptr, "op " + view.node.domain + "." + view.node.op_type + " is not a CPU INT8 op");
    return prepared_op(op->create(view.node, create_int8_reference_op(view)));
  }
};

}  // namespace

const Backend& cpu_int8_backend() {
  static const CpuInt8Backend backend;
  return backend;
}

}  // namespace q8
