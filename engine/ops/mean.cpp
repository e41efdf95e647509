// Mean: the elementwise mean of all inputs (float32 or float16), with numpy broadcasting: their
// sum, added left to right, divided by their count.
#include "engine/ops/elementwise.h"

namespace q8 {

namespace {

class Mean final : public Op {
 public:
  std::vector<Tensor> run(const Inputs& in) const override {
    check(!in.empty() && in[0], "Mean: needs at least one input");
    const bool half = in[0]->dtype() == DType::Float16;
    std::vector<Tensor> wide;
    for (size_t i = 0; i < in.size(); ++i) {
      const Tensor& t = required_input(in, i, "Mean", "data");
      check(t.dtype() == in[0]->dtype(), "Mean: inputs have different types");
      check(t.dtype() == DType::Float32 || half, "Mean: input type " + std::string(dtype_name(t.dtype())) + " is not supported (float32, float16)");
      wide.push_back(half ? t.widened() : t);
    }
    Tensor acc = wide[0].clone();
    for (size_t i = 1; i < wide.size(); ++i) acc = arithmetic(acc, wide[i], "Mean", [](float a, float b) { return a + b; });
    const float n = float(wide.size());
    for (float& v : acc.values<float>()) v /= n;
    return {half ? acc.narrowed() : std::move(acc)};
  }
};

}  // namespace

std::unique_ptr<Op> create_mean(const Node&, const OpContext&) { return std::make_unique<Mean>(); }

}  // namespace q8
