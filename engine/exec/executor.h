// Runs a graph node by node, each node on the first backend that supports it (the placement),
// resolving shapes per run (so the batch may change), freeing each intermediate after its last
// use, and calling a hook after every node.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/cpu/cpu_backend.h"
#include "engine/exec/backend.h"
#include "engine/ir/graph.h"

namespace q8 {

// Called after node `index` ran, with its outputs (the calibrator attaches here).
using NodeHook = std::function<void(const Node& node, size_t index, const std::vector<Tensor>& outputs)>;

using TensorMap = std::map<std::string, Tensor>;

// Backends in order of preference: each node runs on the first that supports it.
using BackendList = std::vector<const Backend*>;

// "Abs ('a1'), TopK ('t1', 't2')" for every node no backend supports; "" if none.
std::string unsupported_ops(const Graph& graph, const BackendList& backends);

class Executor {
 public:
  // Prepares every node. Throws one Error listing all unsupported ops with their node names,
  // or naming the node whose attributes are invalid.
  explicit Executor(Graph graph, const Backend& backend = cpu_backend()) : Executor(std::move(graph), BackendList{&backend}) {}
  Executor(Graph graph, const BackendList& backends);

  const Graph& graph() const { return graph_; }
  // Per node, the name of the backend it runs on (the placement report).
  const std::vector<std::string_view>& placement() const { return placement_; }
  void set_hook(NodeHook hook) { hook_ = std::move(hook); }

  // Runs the graph. Every graph input must be given, with its declared dtype and a shape
  // that fits its declared dims; the Error names the input and what does not fit.
  TensorMap run(const TensorMap& inputs);

  // Values held during the current run (inputs, initializers excluded): what freeing after last
  // use keeps small. Valid inside the hook.
  size_t live_values() const { return live_values_; }

 private:
  void check_inputs(const TensorMap& inputs) const;

  Graph graph_;
  std::vector<std::unique_ptr<PreparedNode>> prepared_;
  std::vector<std::string_view> placement_;
  std::vector<std::vector<std::string>> frees_after_;  // per node: values read last by it
  NodeHook hook_;
  size_t live_values_ = 0;
};

}  // namespace q8
