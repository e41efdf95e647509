// ArgMax: the index of the largest value along axis (arg_extreme.h).
#include "engine/ops/arg_extreme.h"

namespace q8 {

std::unique_ptr<Op> create_arg_max(const Node& node, const OpContext&) { return make_arg_extreme(node, true, "ArgMax"); }

}  // namespace q8
