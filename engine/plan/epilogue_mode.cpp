#include "engine/plan/epilogue_mode.h"

#include <cmath>

#include "engine/ir/error.h"
#include "kernels/abi.h"

namespace q8 {

int epilogue_mode(const Node& node) {
  const float y_scale = node.attr_float("y_scale", 0.0f);
  const std::string activation = node.attr_string("activation", "");
  if (activation.empty()) {
    check(y_scale == 0.0f, node.describe() + ": y_scale needs an activation");
    return -1;
  }
  check(y_scale == 0.0f || (std::isfinite(y_scale) && y_scale > 0.0f), node.describe() + ": y_scale must be a positive finite value");
  const bool int8_out = y_scale > 0.0f;
  if (activation == "Gelu") {
    const std::string approximate = node.attr_string("approximate", "none");
    check(approximate == "none" || approximate == "tanh", node.describe() + ": approximate='" + approximate + "' is not 'none' or 'tanh'");
    if (approximate == "tanh") return int8_out ? Q8_INT8_OUT_GELU_TANH : Q8_FLOAT_OUT_GELU_TANH;
    return int8_out ? Q8_INT8_OUT_GELU : Q8_FLOAT_OUT_GELU;
  }
  if (activation == "Swish") return int8_out ? Q8_INT8_OUT_SWISH : Q8_FLOAT_OUT_SWISH;
  if (activation == "HardSwish") return int8_out ? Q8_INT8_OUT_HARD_SWISH : Q8_FLOAT_OUT_HARD_SWISH;
  if (activation == "Sigmoid") return int8_out ? Q8_INT8_OUT_SIGMOID : Q8_FLOAT_OUT_SIGMOID;
  throw Error(node.describe() + ": activation '" + activation + "' is not Gelu, Swish, HardSwish or Sigmoid");
}

}  // namespace q8
