// The float32 activations between a plan's fused ops: NaN, ±inf, ±0 and values at the kinks, and
// Sigmoid's and Exp's whole range (from below the smallest subnormal result past the largest float).
#include "tests/cases/op_case.h"

namespace q8 {

std::vector<OpCase> relu_cases() { return {make_case("Relu", make_node("Relu", {"x"}), {float_inputs().x}, {false})}; }

std::vector<OpCase> clip_cases() {
  const Tensor lo = Tensor::scalar<float>(-1.5f), hi = Tensor::scalar<float>(6.0f);
  const Tensor& x = float_inputs().x;
  return {make_case("Clip [-1.5, 6]", make_node("Clip", {"x", "lo", "hi"}), {x, lo, hi}, {false, true, true}),
          make_case("Clip [, 6]", make_node("Clip", {"x", "", "hi"}), {x, Tensor(), hi}, {false, false, true}),
          make_case("Clip [0, 6] as attributes (opset 6)",
                    make_node("Clip", {"x"}, {{"min", Attribute::of_float(0.0f)}, {"max", Attribute::of_float(6.0f)}}), {x}, {false}, 6)};
}

std::vector<OpCase> leaky_relu_cases() {
  return {make_case("LeakyRelu 0.1", make_node("LeakyRelu", {"x"}, {{"alpha", Attribute::of_float(0.1f)}}), {float_inputs().x}, {false})};
}

std::vector<OpCase> hard_sigmoid_cases() {
  return {make_case("HardSigmoid", make_node("HardSigmoid", {"x"}), {float_inputs().x}, {false})};
}

std::vector<OpCase> hard_swish_cases() { return {make_case("HardSwish", make_node("HardSwish", {"x"}), {float_inputs().x}, {false})}; }

std::vector<OpCase> sigmoid_cases() {
  return {make_case("Sigmoid", make_node("Sigmoid", {"x"}), {float_inputs().x}, {false}),
          make_case("Sigmoid, -110 to 90", make_node("Sigmoid", {"x"}), {float_inputs().tails}, {false})};
}

std::vector<OpCase> exp_cases() {
  return {make_case("Exp", make_node("Exp", {"x"}), {float_inputs().x}, {false}),
          make_case("Exp, -110 to 90", make_node("Exp", {"x"}), {float_inputs().tails}, {false})};
}

std::vector<OpCase> reciprocal_cases() {
  return {make_case("Reciprocal", make_node("Reciprocal", {"x"}), {float_inputs().x}, {false}),
          make_case("Reciprocal, -110 to 90", make_node("Reciprocal", {"x"}), {float_inputs().tails}, {false})};
}

std::vector<OpCase> neg_cases() { return {make_case("Neg", make_node("Neg", {"x"}), {float_inputs().x}, {false})}; }

std::vector<OpCase> abs_cases() { return {make_case("Abs", make_node("Abs", {"x"}), {float_inputs().x}, {false})}; }

}  // namespace q8
