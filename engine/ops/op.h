// The operator interface: create (validate attributes) → run (infer shapes, compute outputs).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ir/node.h"
#include "engine/ir/tensor.h"

namespace q8 {

// Inputs of one run, in the node's input order; nullptr marks an absent optional input.
using Inputs = std::vector<const Tensor*>;

struct OpContext {
  int64_t opset = 0;                 // the model's default-domain opset
  std::vector<bool> constant_inputs;  // per node input: an initializer, the same every run

  bool input_is_constant(size_t i) const { return i < constant_inputs.size() && constant_inputs[i]; }
};

// A created operator. Its constructor validates attributes and throws Error for values it
// cannot honour; run infers output shapes from the inputs given and computes the outputs.
class Op {
 public:
  virtual ~Op() = default;
  virtual std::vector<Tensor> run(const Inputs& in) const = 0;
};

using OpFactory = std::unique_ptr<Op> (*)(const Node& node, const OpContext& ctx);

struct OpInfo {
  std::string_view type;
  OpFactory create;
};

// The registry (engine/ops/ops.inc lists every op once).
const OpInfo* find_op(std::string_view op_type);
std::span<const OpInfo> registered_ops();

// Input i, which must be present; the Error names the op and the input index.
const Tensor& required_input(const Inputs& in, size_t i, const char* op, const char* what);
// Input i or nullptr.
inline const Tensor* optional_input(const Inputs& in, size_t i) { return i < in.size() ? in[i] : nullptr; }

// Normalizes a possibly negative axis against rank; Error when out of range.
int64_t normalize_axis(int64_t axis, int64_t rank, const char* op);

}  // namespace q8
