// What every OpenCL node of the q8 domain shares: its device, and the INT8 reference op that gives
// its output shapes, so shapes and their checks are written once; work that depends on the input
// shapes only (geometry tables) is done in prepare, once per reshape. And the refusal every INT8
// backend gives a node the lowering would not write (engine/plan/reference/backend.h).
#pragma once

#include <memory>
#include <string>

#include "engine/opencl/args.h"
#include "engine/opencl/ops/ops.h"
#include "engine/plan/reference/backend.h"

namespace q8 {

class ClInt8Node : public PreparedNode {
 public:
  ClInt8Node(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : device_(std::move(device)), shapes_(create_int8_reference_op(view)), name_(view.node.describe()) {}

  Reshaped reshape(const std::vector<TensorDesc>& inputs) final {
    out_ = shapes_->reshape(inputs).value().at(0);
    prepare(inputs);
    return {{out_}, 0};
  }

 protected:
  virtual void prepare(const std::vector<TensorDesc>& /*inputs*/) {}

  std::shared_ptr<OpenClDevice> device_;
  std::unique_ptr<Op> shapes_;
  std::string name_;
  TensorDesc out_;
};

// Yes, or why the node is not one an INT8 backend runs (int8_node_refusal).
inline Support int8_support(const NodeView& view) {
  const std::string why = int8_node_refusal(view);
  return why.empty() ? Support::yes() : Support::no(why);
}

}  // namespace q8
