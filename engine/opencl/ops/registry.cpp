#include <algorithm>
#include <iterator>

#include "engine/opencl/ops/ops.h"

namespace q8 {

#define Q8_CL_OP(domain, op)                                   \
  Support supports_##op(const NodeView&, const DeviceCaps&); \
  std::unique_ptr<PreparedNode> create_##op(std::shared_ptr<OpenClDevice>, const NodeView&);
#define Q8_CL_ON_CPU(domain, op, reason)
#include "engine/opencl/ops/ops.inc"
#undef Q8_CL_OP
#undef Q8_CL_ON_CPU

namespace {

// Reasons several ops share.
constexpr const char* kNoKernelYet = "no OpenCL kernel yet: runs on the CPU";
constexpr const char* kShapes = "works on shapes, indices or masks, which stay on the host";
constexpr const char* kInference = "an op of the FP32 inference graph's rewrites, which plans do not hold";

const ClOp kOps[] = {
#define Q8_CL_OP(domain, op) {domain, #op, supports_##op, create_##op},
#define Q8_CL_ON_CPU(domain, op, reason)
#include "engine/opencl/ops/ops.inc"
#undef Q8_CL_OP
#undef Q8_CL_ON_CPU
};

const ClOnCpu kOnCpu[] = {
#define Q8_CL_OP(domain, op)
#define Q8_CL_ON_CPU(domain, op, reason) {domain, #op, reason},
#include "engine/opencl/ops/ops.inc"
#undef Q8_CL_OP
#undef Q8_CL_ON_CPU
};

}  // namespace

const ClOp* find_cl_op(std::string_view domain, std::string_view op_type) {
  if (domain == "ai.onnx") domain = "";
  for (const ClOp& op : kOps)
    if (op.domain == domain && op.op_type == op_type) return &op;
  return nullptr;
}

std::span<const ClOp> cl_ops() { return kOps; }

const ClOnCpu* cl_on_cpu(std::string_view domain, std::string_view op_type) {
  if (domain == "ai.onnx") domain = "";
  for (const ClOnCpu& op : kOnCpu)
    if (op.domain == domain && op.op_type == op_type) return &op;
  return nullptr;
}

std::span<const ClOnCpu> cl_ops_on_cpu() { return kOnCpu; }

Inputs host_parameters(OpenClDevice& device, const Inputs& in, std::vector<Tensor>& moved) {
  moved.clear();
  moved.reserve(in.size());
  Inputs params;
  for (size_t i = 1; i < in.size(); ++i) {
    const Tensor* p = in[i];
    if (p && p->on_device()) p = &moved.emplace_back(device.download(*p));
    params.push_back(p);
  }
  return params;
}

Support constant_parameters(const NodeView& view) {
  for (size_t i = 1; i < view.node.inputs.size(); ++i)
    if (view.has_input(i) && !view.constant(i)) return Support::no("input " + std::to_string(i) + " is not constant");
  return Support::yes();
}

}  // namespace q8
