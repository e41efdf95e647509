// ArgMin: the index of the smallest value along axis (arg_extreme.h).
#include "engine/ops/arg_extreme.h"

namespace q8 {

std::unique_ptr<Op> create_arg_min(const Node& node, const OpContext&) { return make_arg_extreme(node, false, "ArgMin"); }

}  // namespace q8
