// The OpenCL backend's ops, one table (ops.inc): per op type of any domain, whether the device runs a
// node (or why not) and the node made ready to run, each defined in engine/opencl/ops/<file>.cpp;
// and for every other registered op, why it runs on the CPU.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "engine/exec/backend.h"
#include "engine/opencl/device.h"

namespace q8 {

struct ClOp {
  std::string_view domain, op_type;
  Support (*supports)(const NodeView& view, const DeviceCaps& caps);
  std::unique_ptr<PreparedNode> (*create)(std::shared_ptr<OpenClDevice> device, const NodeView& view);
};

// A registered op the device has no kernel for, and why it runs on the CPU.
struct ClOnCpu {
  std::string_view domain, op_type, reason;
};

// The entry for node's op, or nullptr.
const ClOp* find_cl_op(std::string_view domain, std::string_view op_type);
std::span<const ClOp> cl_ops();
// Why a registered op without an OpenCL kernel runs on the CPU, or nullptr for one that has a kernel.
const ClOnCpu* cl_on_cpu(std::string_view domain, std::string_view op_type);
std::span<const ClOnCpu> cl_ops_on_cpu();

// Yes when every input after the first is absent or constant, else why not.
Support constant_parameters(const NodeView& view);
// A node's parameters (every input after the first) where the host can read them: those a device
// node made are downloaded into `moved`, which must outlive the result; absent ones are nullptr.
Inputs host_parameters(OpenClDevice& device, const Inputs& in, std::vector<Tensor>& moved);

}  // namespace q8
