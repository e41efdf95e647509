#include "engine/plan/reference/window_shape.h"

namespace q8 {

void check_window_inputs(const std::vector<TensorDesc>& in, const std::string& name) {
  check(in.size() >= 2 && in[0].dtype == DType::Int8 && in[1].dtype == DType::Int8, name + ": x and w must be int8");
  check(in[0].dims.size() >= 3 && in[1].dims.size() == in[0].dims.size(), name + ": x must be [N, C, spatial…] and w of the same rank");
}

}  // namespace q8
