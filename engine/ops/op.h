// The operator interface: create (validate attributes and constants) → reshape (output shapes, when
// known before running) → run (compute outputs).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/ir/node.h"
#include "engine/ir/tensor.h"

namespace q8 {

// Inputs of one run, in the node's input order; nullptr marks an absent optional input.
using Inputs = std::vector<const Tensor*>;

struct OpContext {
  int64_t opset = 0;                    // the model's default-domain opset
  std::vector<const Tensor*> constants;  // per node input: its value when constant (the same every run)

  bool input_is_constant(size_t i) const { return i < constants.size() && constants[i]; }
};

// A created operator. Its constructor validates attributes (and constant inputs, which it may
// pack) and throws Error for values it cannot honour; run infers output shapes from the inputs
// given and computes the outputs, allocating them.
class Op {
 public:
  virtual ~Op() = default;
  virtual std::vector<Tensor> run(const Inputs& in) const = 0;
  // The outputs' types and shapes from the inputs' alone, for an op that knows them before
  // running (a SizedOp); nullopt for one whose run must see the values (Reshape's shape input,
  // NonZero) or that was written before reshape existed.
  virtual std::optional<std::vector<TensorDesc>> reshape(const std::vector<TensorDesc>&) const { return std::nullopt; }
  // Computes into out: the buffers reshape described when it gave them, else empty tensors that
  // run fills.
  virtual void run_into(const Inputs& in, std::vector<Tensor>& out) const { out = run(in); }
  // False where run reads only input `slot`'s type and dims, never its values (Shape).
  virtual bool reads_values(size_t /*slot*/) const { return true; }
};

// An op whose outputs' types and shapes follow from its inputs' (output_descs, which also checks
// them) and that writes every element of buffers it is given (run_into).
class SizedOp : public Op {
 public:
  virtual std::vector<TensorDesc> output_descs(const std::vector<TensorDesc>& in) const = 0;
  void run_into(const Inputs& in, std::vector<Tensor>& out) const override = 0;

  std::optional<std::vector<TensorDesc>> reshape(const std::vector<TensorDesc>& in) const final { return output_descs(in); }
  std::vector<Tensor> run(const Inputs& in) const final;
};

// The descriptions of inputs (an absent one is Undefined).
std::vector<TensorDesc> describe(const Inputs& in);

using OpFactory = std::unique_ptr<Op> (*)(const Node& node, const OpContext& ctx);

struct OpInfo {
  std::string_view type;
  OpFactory create;
  std::string_view domain = "";  // "" for ONNX's default domain
};

// The registry (engine/ops/ops.inc lists every op once; contrib_ops.inc those of other domains).
const OpInfo* find_op(std::string_view op_type);  // the default domain
const OpInfo* find_op(std::string_view domain, std::string_view op_type);
std::span<const OpInfo> registered_ops();  // the default domain
std::span<const OpInfo> contrib_ops();      // the other domains (contrib_ops.inc)

// Runs one subgraph of a control-flow node (If's branches, Loop's body) on the host: values binds
// the subgraph's inputs (its own, then the outer values it reads) by name; returns its outputs in
// order, owned by the caller. The executor provides the runners (engine/exec/executor.cpp).
class SubgraphRunner {
 public:
  virtual ~SubgraphRunner() = default;
  virtual std::vector<Tensor> run(const std::map<std::string, Tensor>& values) = 0;
};
using SubgraphRunnerFactory = std::unique_ptr<SubgraphRunner> (*)(const Graph& graph);
void set_subgraph_runner_factory(SubgraphRunnerFactory factory);
// A runner for graph; an Error when no executor registered a factory.
std::unique_ptr<SubgraphRunner> make_subgraph_runner(const Graph& graph);

// Input i, which must be present; the Error names the op and the input index.
const Tensor& required_input(const Inputs& in, size_t i, const char* op, const char* what);
// Input i or nullptr.
inline const Tensor* optional_input(const Inputs& in, size_t i) { return i < in.size() ? in[i] : nullptr; }

// Normalizes a possibly negative axis against rank; Error when out of range.
int64_t normalize_axis(int64_t axis, int64_t rank, const char* op);

}  // namespace q8
