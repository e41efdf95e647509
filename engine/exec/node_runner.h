// One node on one backend, run exactly as the executor runs it: the view the executor gives the
// backend (types and shapes from the inputs, constants where marked), supports → create →
// reshape → run into buffers of reshape's shapes, inputs handed where the executor hands them,
// outputs brought back to the host. What the cross-backend harness and the benchmarks of single
// ops run (tests/cases/).
#pragma once

#include <vector>

#include "engine/exec/backend.h"

namespace q8 {

// The view of node with inputs `in` (nullptr: absent), constant[i] marking those a plan holds as
// constants (weights, biases, scales, tables).
NodeView node_view(const Node& node, const Inputs& in, const std::vector<bool>& constant, int64_t opset = 13);

// Every output of node on backend, on the host. Inputs that are not constants reach the node as
// the executor hands them: on the host where the node takes them there
// (PreparedNode::takes_host_input), else in the backend's memory; with upload_all, every one in
// the backend's memory (as when a node of the device made it). Error, with the backend's reason,
// when the backend does not take the node.
std::vector<Tensor> run_node(const Backend& backend, const Node& node, const Inputs& in, const std::vector<bool>& constant,
                             int64_t opset = 13, bool upload_all = false);

}  // namespace q8
