// The INT8 reference backend: the fused integer ops of the q8 domain (ops.inc), as plain loops
// that follow docs/quantization.md line by line. It is the oracle every device matches bit for bit.
#pragma once

#include "engine/exec/backend.h"

namespace q8 {

const Backend& int8_reference_backend();

// Why a q8-domain node cannot run as the lowering writes such nodes (an input of the wrong type,
// a weight or table that is not constant), or "": what every INT8 backend checks first.
std::string int8_node_refusal(const NodeView& view);

// The reference op for a q8-domain node, which device backends use for its shapes (reshape), or
// nullptr when the node is no q8 op.
std::unique_ptr<Op> create_int8_reference_op(const NodeView& view);

}  // namespace q8
