#include "engine/opencl/ops/broadcast_layout.h"

#include <vector>

#include "kernels/abi.h"

namespace q8 {

namespace {

struct Axis {
  int64_t dim, stride[2];
};

}  // namespace

Tensor broadcast_layout(const Dims& out, const Dims& a, const Dims& b, const std::string& name) {
  constexpr size_t kAxes = Q8_BROADCAST_AXES;
  check(out.size() <= kAxes, name + ": OpenCL's broadcasting ops take up to " + std::to_string(kAxes) + " axes");
  // Per output axis, outermost first: its size and each operand's stride (0 where broadcast).
  std::vector<Axis> axes(out.size());
  const Dims* operands[2] = {&a, &b};
  for (size_t k = 0; k < out.size(); ++k) axes[k].dim = out[k], axes[k].stride[0] = axes[k].stride[1] = 0;
  for (size_t t = 0; t < 2; ++t) {
    const Dims& d = *operands[t];
    int64_t stride = 1;
    for (size_t k = d.size(); k-- > 0;) {
      axes[out.size() - d.size() + k].stride[t] = d[k] == 1 ? 0 : stride;
      stride *= d[k];
    }
  }
  // Merged from the innermost out: an outer axis joins the one inside it where, for each operand,
  // its stride is the inner one's times the inner size (0 for both where broadcast along both).
  std::vector<Axis> merged;
  for (size_t k = axes.size(); k-- > 0;) {
    const Axis& x = axes[k];
    if (x.dim == 1) continue;
    if (!merged.empty()) {
      Axis& in = merged.back();
      const auto joins = [&](int t) { return x.stride[t] == in.stride[t] * in.dim; };
      if (joins(0) && joins(1)) {
        in.dim *= x.dim;
        continue;
      }
    }
    merged.push_back(x);
  }
  std::vector<int64_t> layout(3 * kAxes, 0);
  for (size_t axis = 0; axis < kAxes; ++axis) layout[axis] = 1;
  for (size_t m = 0; m < merged.size(); ++m) {  // merged[0] is the innermost: the last slot
    const size_t slot = kAxes - 1 - m;
    layout[slot] = merged[m].dim, layout[kAxes + slot] = merged[m].stride[0], layout[2 * kAxes + slot] = merged[m].stride[1];
  }
  return Tensor::from_vector<int64_t>({int64_t(3 * kAxes)}, layout);
}

}  // namespace q8
