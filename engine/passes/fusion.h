// What the inference graph's fusions share: matching a node by op type, reading a constant scalar,
// and replacing the nodes a fusion found with the one node that does their work.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/graph_index.h"

namespace q8 {

// The nodes a fusion replaces and the node that replaces them. The new node takes the place of the
// last of them in graph order, where every value it reads has been computed.
struct FusedChain {
  std::vector<int> nodes;
  Node fused;
};

// n is the default domain's op with one output.
bool is_op(const Node& n, const char* op);
// value's constant float32 of one element (any shape), or nullopt.
std::optional<float> constant_scalar(const GraphIndex& index, const std::string& value);
// Whether v is within a relative 1e-5 of expected (exporters write √2 and 1/√2 to 6–9 digits).
bool near(float v, double expected);
// Binary node n's input other than value; "" when n does not read value once.
std::string other_input(const Node& n, const std::string& value);
// The node reading value alone, if it is the default domain's op, else -1.
int sole_reader_op(const GraphIndex& index, const std::string& value, const char* op);
// Applies fusions that share no node (a fusion naming a node an earlier one took is dropped);
// returns how many it applied.
int apply_fusions(Graph& graph, const std::vector<FusedChain>& fusions);
// match(index, i) at every node i of graph (one index of the graph as it is), then the chains
// found applied: how many.
int fuse_matches(Graph& graph, const std::function<std::optional<FusedChain>(const GraphIndex&, int)>& match);

}  // namespace q8
