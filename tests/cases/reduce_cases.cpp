// The float32 reductions the device runs over trailing axes: the last axis (a LayerNorm written
// out), several trailing axes (a pooled mean), every axis, keepdims 0, axes as input 1 (opset 18),
// NaN and ±inf in rows (Max and Min pass NaN over as std::max and std::min do), an L2 norm.
#include "tests/cases/op_case.h"

namespace q8 {

namespace {

std::vector<OpCase> reduce_cases(const std::string& op) {
  const FloatInputs& f = float_inputs();
  std::mt19937 rng(31);
  const Tensor hidden = random_float({2, 13, 33}, rng, -8.0f, 8.0f);
  const bool input_axes = op == "ReduceSum";  // axes an input from opset 13; the others from 18
  const auto node = [&](std::vector<int64_t> axes, int64_t keepdims) {
    std::map<std::string, Attribute> attrs{{"keepdims", Attribute::of_int(keepdims)}};
    if (!input_axes) attrs["axes"] = Attribute::of_ints(axes);
    return make_node(op, input_axes ? std::vector<std::string>{"x", "axes"} : std::vector<std::string>{"x"}, attrs);
  };
  const auto with = [&](const std::string& name, std::vector<int64_t> axes, int64_t keepdims, const Tensor& x) {
    if (input_axes) return make_case(op + " " + name, node(axes, keepdims), {x, longs(axes)}, {false, true}, 13);
    return make_case(op + " " + name, node(axes, keepdims), {x}, {false}, 13);
  };
  std::vector<OpCase> cases = {with("last axis, keepdims (a LayerNorm written out)", {-1}, 1, hidden),
                               with("axes 2 and 3, keepdims 0", {2, 3}, 0, f.finite),
                               with("NaN and ±inf in rows, last axis", {3}, 1, f.x)};
  OpCase all = make_case(op + " every axis (no axes)", make_node(op, {"x"}), {f.x2}, {false}, 13);
  cases.push_back(all);
  if (!input_axes)
    cases.push_back(make_case(op + " axes as input 1 (opset 18)", make_node(op, {"x", "axes"}), {hidden, longs({-1})}, {false, true}, 18));
  return cases;
}

}  // namespace

std::vector<OpCase> reduce_mean_cases() { return reduce_cases("ReduceMean"); }
std::vector<OpCase> reduce_sum_cases() { return reduce_cases("ReduceSum"); }
std::vector<OpCase> reduce_sum_square_cases() { return reduce_cases("ReduceSumSquare"); }
std::vector<OpCase> reduce_l1_cases() { return reduce_cases("ReduceL1"); }
std::vector<OpCase> reduce_l2_cases() { return reduce_cases("ReduceL2"); }
std::vector<OpCase> reduce_max_cases() { return reduce_cases("ReduceMax"); }
std::vector<OpCase> reduce_min_cases() { return reduce_cases("ReduceMin"); }

}  // namespace q8
