// The backend interface every executor backend implements: does it support a node, prepare
// it, run it (DESIGN.md decision 3).
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "engine/ops/op.h"

namespace q8 {

// A node made ready to run on one backend.
class PreparedNode {
 public:
  virtual ~PreparedNode() = default;
  virtual std::vector<Tensor> run(const Inputs& inputs) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  virtual bool supports(const Node& node) const = 0;
  // Validates attributes; throws Error (without node context, which the caller adds).
  virtual std::unique_ptr<PreparedNode> prepare(const Node& node, const OpContext& ctx) const = 0;
};

// An Op (engine/ops/op.h) as a prepared node: the adapter every op-registry backend uses.
std::unique_ptr<PreparedNode> prepared_op(std::unique_ptr<Op> op);


}  // namespace q8
