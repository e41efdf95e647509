#include "engine/plan/reference/window_shape.h"

#include "engine/ops/channels_last.h"

namespace q8 {

void check_window_inputs(const std::vector<TensorDesc>& in, const std::string& name) {
  check(in.size() >= 2 && in[0].dtype == DType::Int8 && in[1].dtype == DType::Int8, name + ": x and w must be int8");
  check(in[0].dims.size() >= 3 && in[1].dims.size() == in[0].dims.size(), name + ": x must be [N, C, spatial…] and w of the same rank");
}

Dims channels_first_input(const Dims& x, bool channels_last, const std::string& name) {
  if (!channels_last) return x;
  check(x.size() == 4, name + ": channels_last needs a 2-D convolution's [N, H, W, C] input, not " + dims_to_string(x));
  return channels_first_dims(x);
}

}  // namespace q8
