#include "engine/exec/cpu_backend.h"

namespace q8 {

namespace {

class CpuBackend final : public Backend {
 public:
  std::string_view name() const override { return "cpu"; }
  std::vector<OpKey> op_types() const override {
    std::vector<OpKey> out;
    for (const OpInfo& op : registered_ops()) out.push_back({std::string(op.domain), std::string(op.type)});
    for (const OpInfo& op : contrib_ops()) out.push_back({std::string(op.domain), std::string(op.type)});
    return out;
  }
  Support supports(const NodeView& view) const override {
    return find_op(view.node.domain, view.node.op_type) ? Support::yes() : Support::no();
  }
  std::unique_ptr<PreparedNode> create(const NodeView& view) const override {
    const OpInfo* info = find_op(view.node.domain, view.node.op_type);
    check(info != nullptr, "op " + view.node.op_type + " is not supported");
    return prepared_op(info->create(view.node, view.op_context()));
  }
};

}  // namespace

const Backend& cpu_backend() {
  static const CpuBackend backend;
  return backend;
}

}  // namespace q8
