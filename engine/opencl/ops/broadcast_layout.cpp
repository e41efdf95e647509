#include "engine/opencl/ops/broadcast_layout.h"

#include <vector>

#include "kernels/abi.h"

namespace q8 {

Tensor broadcast_layout(const Dims& out, const Dims& a, const Dims& b, const std::string& name) {
  constexpr size_t kAxes = Q8_BROADCAST_AXES;
  std::vector<int64_t> layout(3 * kAxes, 0);
  check(out.size() <= kAxes, name + ": OpenCL's broadcasting ops take up to " + std::to_string(kAxes) + " axes");
  for (size_t axis = 0; axis < kAxes; ++axis) layout[axis] = axis + out.size() >= kAxes ? out[axis + out.size() - kAxes] : 1;
  const Dims* operands[2] = {&a, &b};
  for (size_t t = 0; t < 2; ++t) {
    const Dims& d = *operands[t];
    int64_t stride = 1;
    for (size_t k = d.size(); k-- > 0;) {
      layout[kAxes * (t + 1) + (kAxes - d.size() + k)] = d[k] == 1 ? 0 : stride;
      stride *= d[k];
    }
  }
  return Tensor::from_vector<int64_t>({int64_t(3 * kAxes)}, layout);
}

}  // namespace q8
