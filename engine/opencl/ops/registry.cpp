#include "engine/opencl/ops/ops.h"

namespace q8 {

#define Q8_CL_OP(name) \
  Support supports_##name(const NodeView&, const DeviceCaps&); \
  std::unique_ptr<PreparedNode> create_##name(std::shared_ptr<OpenClDevice>, const NodeView&);
#include "engine/opencl/ops/ops.inc"
#undef Q8_CL_OP

namespace {
const ClOp kOps[] = {
#define Q8_CL_OP(name) {#name, supports_##name, create_##name},
#include "engine/opencl/ops/ops.inc"
#undef Q8_CL_OP
};
}  // namespace

const ClOp* find_cl_op(std::string_view op_type) {
  for (const ClOp& op : kOps)
    if (op.op_type == op_type) return &op;
  return nullptr;
}

std::span<const ClOp> cl_ops() { return kOps; }

Support constant_parameters(const NodeView& view) {
  for (size_t i = 1; i < view.node.inputs.size(); ++i)
    if (view.has_input(i) && !view.constant(i)) return Support::no("input " + std::to_string(i) + " is not constant");
  return Support::yes();
}

}  // namespace q8
