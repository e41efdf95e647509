// Add, Sub, Mul, Div and Pow on float32: broadcasting, a constant operand on either side, inf − inf;
// Pow's square and cube (x · x and x · x · x on both sides: bit for bit) and other exponents (the
// device's pow, within OpenCL's 16 ulp of the host's).
#include <cmath>

#include "tests/cases/op_case.h"

namespace q8 {

namespace {
std::vector<OpCase> binary_cases(const std::string& op) {
  const FloatInputs& f = float_inputs();
  const Node n = make_node(op, {"a", "b"});
  return {make_case(op + " same shapes", n, {f.x, f.x2}, {false, false}),
          make_case(op + " per-channel constant", n, {f.x, f.per_channel}, {false, true}),
          make_case(op + " per-channel constant first", n, {f.per_channel, f.x}, {true, false}),
          make_case(op + " broadcast along channels", n, {f.x, f.thin}, {false, false})};
}
}  // namespace

std::vector<OpCase> add_cases() { return binary_cases("Add"); }
std::vector<OpCase> sub_cases() { return binary_cases("Sub"); }
std::vector<OpCase> mul_cases() { return binary_cases("Mul"); }
std::vector<OpCase> div_cases() { return binary_cases("Div"); }

std::vector<OpCase> pow_cases() {
  const FloatInputs& f = float_inputs();
  const Node n = make_node("Pow", {"x", "y"});
  OpCase general = make_case("Pow, exponents 0.5, -1.5 and 1.25 by channel", n,
                             {f.finite, floats({0.5f, -1.5f, 1.25f}).reshaped({3, 1, 1})}, {false, true});
  general.expect = Expect::Within;
  const float exponents[] = {0.5f, -1.5f, 1.25f};
  const int64_t per_channel = general.inputs[0].numel() / general.inputs[0].dim(0) / 3;
  for (int64_t i = 0; i < general.inputs[0].numel(); ++i) {
    const float x = general.inputs[0].data<float>()[i];
    const double y = std::pow(double(x), double(exponents[(i / per_channel) % 3]));
    general.tolerance.push_back(std::isfinite(y) ? 16.0 * std::ldexp(1.0, -23) * std::fabs(y) + 1e-37 : 0.0);
  }
  return {make_case("Pow square (the LayerNorm pattern's)", n, {f.x, Tensor::scalar<float>(2.0f)}, {false, true}),
          make_case("Pow cube", n, {f.x2, Tensor::scalar<float>(3.0f)}, {false, true}), general};
}

// Where with a bool condition: an attention mask [2, 1, 1, 7] over scores [2, 3, 5, 7] against a
// constant scalar, a condition of the scores' shape (IsNaN of them), X and Y swapped in rank.
std::vector<OpCase> where_cases() {
  const FloatInputs& f = float_inputs();
  Tensor mask(DType::Bool, {2, 1, 1, 7}), nan_mask(DType::Bool, {2, 3, 5, 7});
  for (int64_t i = 0; i < mask.numel(); ++i) mask.data<bool>()[i] = i % 3 != 0;
  for (int64_t i = 0; i < nan_mask.numel(); ++i) nan_mask.data<bool>()[i] = std::isnan(f.x.data<float>()[i]);
  const Node n = make_node("Where", {"c", "x", "y"});
  return {make_case("Where: a mask over scores, a constant -inf", n, {mask, f.x, Tensor::scalar<float>(-INFINITY)}, {false, false, true}),
          make_case("Where: NaN to 0 (a softmax's masked rows)", n, {nan_mask, Tensor::scalar<float>(0.0f), f.x}, {false, true, false}),
          make_case("Where: a constant mask, X broadcast along channels", n, {mask, f.thin, f.x2}, {true, false, false})};
}

std::vector<OpCase> is_nan_cases() { return {make_case("IsNaN", make_node("IsNaN", {"x"}), {float_inputs().x}, {false})}; }

}  // namespace q8
