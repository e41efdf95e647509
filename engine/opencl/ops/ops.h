// The OpenCL backend's ops of the default domain that live in files of their own
// (engine/opencl/ops/<op>.cpp), in one table: per op type, whether the device runs a node (or
// why not) and the node made ready to run.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "engine/exec/backend.h"
#include "engine/opencl/device.h"

namespace q8 {

struct ClOp {
  std::string_view op_type;
  Support (*supports)(const NodeView& view, const DeviceCaps& caps);
  std::unique_ptr<PreparedNode> (*create)(std::shared_ptr<OpenClDevice> device, const NodeView& view);
};

// The entry for op_type, or nullptr.
const ClOp* find_cl_op(std::string_view op_type);
std::span<const ClOp> cl_ops();

// Yes when every input after the first is absent or constant, else why not.
Support constant_parameters(const NodeView& view);

}  // namespace q8
