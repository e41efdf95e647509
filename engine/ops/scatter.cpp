#include "engine/ops/scatter.h"

namespace q8 {

ScatterReduction scatter_reduction(const Node& node) {
  const std::string r = node.attr_string("reduction", "none");
  if (r == "none") return ScatterReduction::None;
  if (r == "add") return ScatterReduction::Add;
  if (r == "mul") return ScatterReduction::Mul;
  if (r == "max") return ScatterReduction::Max;
  if (r == "min") return ScatterReduction::Min;
  throw Error(node.describe() + ": reduction '" + r + "' is not none, add, mul, max or min");
}

void scatter_element(Tensor& out, int64_t to, const Tensor& updates, int64_t from, ScatterReduction r) {
  if (r == ScatterReduction::None || out.dtype() == DType::Bool) {
    const size_t elem = dtype_size(out.dtype());
    copy_bytes(out.raw() + size_t(to) * elem, updates.raw() + size_t(from) * elem, elem);
    return;
  }
  if (out.dtype() == DType::Float16) {
    Float16& d = out.data<Float16>()[to];
    d = float_to_half(scatter_combine(half_to_float(d), half_to_float(updates.data<Float16>()[from]), r));
    return;
  }
  visit_numeric(out.dtype(), [&]<typename T>() {
    T& d = out.data<T>()[to];
    d = scatter_combine(d, updates.data<T>()[from], r);
  });
}

}  // namespace q8
