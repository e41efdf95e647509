// Range: [start, start + delta, …) up to limit, ⌈(limit − start) / delta⌉ values (none when that
// is negative), each the previous plus delta as ONNX's function body and ONNX Runtime add them.
// start, limit and delta are scalars of one type: float32, int32 or int64.
#include <cmath>

#include "engine/ops/op.h"

namespace q8 {

namespace {

class Range final : public Op {
 public:
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& start = required_input(in, 0, "Range", "start");
    const Tensor& limit = required_input(in, 1, "Range", "limit");
    const Tensor& delta = required_input(in, 2, "Range", "delta");
    for (const Tensor* t : {&start, &limit, &delta})
      check(t->numel() == 1, "Range: start, limit and delta must be scalars, got " + dims_to_string(t->dims()));
    check(start.dtype() == limit.dtype() && start.dtype() == delta.dtype(), "Range: start, limit and delta have different types");
    const DType type = start.dtype();
    check(type == DType::Float32 || type == DType::Int32 || type == DType::Int64,
          "Range: type " + std::string(dtype_name(type)) + " is not supported (float32, int32, int64)");
    const double s = start.element_as_double(0), l = limit.element_as_double(0), d = delta.element_as_double(0);
    check(d != 0, "Range: delta is 0");
    const double count = std::ceil((l - s) / d);
    check(count < double(int64_t(1) << 40), "Range: " + std::to_string(count) + " values is too many");
    const int64_t n = std::max<int64_t>(0, int64_t(count));
    Tensor y(type, {n});
    if (type == DType::Float32) {
      float v = start.data<float>()[0];
      const float step = delta.data<float>()[0];
      for (int64_t i = 0; i < n; ++i, v += step) y.data<float>()[i] = v;
    } else if (type == DType::Int32) {
      for (int64_t i = 0; i < n; ++i) y.data<int32_t>()[i] = int32_t(start.data<int32_t>()[0] + i * int64_t(delta.data<int32_t>()[0]));
    } else {
      for (int64_t i = 0; i < n; ++i) y.data<int64_t>()[i] = start.data<int64_t>()[0] + i * delta.data<int64_t>()[0];
    }
    return {std::move(y)};
  }
};

}  // namespace

std::unique_ptr<Op> create_range(const Node&, const OpContext&) { return std::make_unique<Range>(); }

}  // namespace q8
