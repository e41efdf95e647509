// Who produces and who reads each value of a graph: the one index calib, quant and the engine
// share. Built in one pass over a graph it does not own; a pass that rewrites the graph builds a
// new one.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/ir/graph.h"

namespace q8 {

class GraphIndex {
 public:
  explicit GraphIndex(const Graph& graph);

  const Graph& graph() const { return graph_; }
  const Node& node(int i) const { return graph_.nodes[size_t(i)]; }
  // The node producing value, or -1 (graph input, initializer, unknown).
  int producer(const std::string& value) const;
  // The op type of value's producer; "" for graph inputs and constants.
  std::string producer_op(const std::string& value) const;
  // The nodes reading value, in graph order (a node reading it twice is listed twice).
  const std::vector<int>& readers(const std::string& value) const;
  bool is_graph_output(const std::string& value) const;
  // Reads by nodes plus uses as a graph output: 0 means nothing needs value.
  int uses(const std::string& value) const;
  // The one node reading value (which is no graph output), or -1.
  int sole_reader(const std::string& value) const;
  // Graph::constant, the one answer to "is this value constant", by lookup.
  const Tensor* constant(const std::string& value) const;
  // Graph::declared, by lookup.
  const ValueInfo* declared(const std::string& value) const;

 private:
  const Graph& graph_;
  std::map<std::string, const ValueInfo*> declared_;
  std::map<std::string, int> producers_;
  std::map<std::string, std::vector<int>> readers_;
  std::map<std::string, int> output_uses_;
};

}  // namespace q8
