// Add, Sub, Mul, Div and Pow on float32: broadcasting, a constant operand on either side, inf − inf;
// Pow's square and cube (x · x and x · x · x on both sides: bit for bit) and other exponents (the
// device's pow, within OpenCL's 16 ulp of the host's).
#include <algorithm>
#include <cmath>
#include <random>

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

// MulQuantize (q8): a Mul and its QuantizeLinear, expected from docs/quantization.md ("A float Mul
// and its Q"): clamp(rne(p / s), -128, 127) of the float32 product p, a NaN giving -128 as
// QuantizeLinear's does. Same shapes (x's NaN, ±inf and ±0, and the NaN of inf · 0), and a
// squeeze-excitation gate [2, 3, 5, 7] · [2, 3, 1, 1].
std::vector<OpCase> mul_quantize_cases() {
  const FloatInputs& f = float_inputs();
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> gate(0.0f, 1.0f);
  Tensor g(DType::Float32, {2, 3, 1, 1});
  for (float& v : g.values<float>()) v = gate(rng);
  const float s = 0.037f;
  Node n = make_node("MulQuantize", {"a", "b"}, {{"y_scale", Attribute::of_float(s)}}, kInt8Domain);
  std::vector<OpCase> out;
  for (const auto& [what, b] : {std::pair<std::string, Tensor>{"same shapes", f.x2}, {"a squeeze-excitation gate", g}}) {
    OpCase c = make_case("MulQuantize, " + what, n, {f.x, b}, {false, false});
    c.expect = Expect::Bits;
    Tensor y(DType::Int8, f.x.dims());
    const int64_t plane = 5 * 7;
    for (int64_t i = 0; i < y.numel(); ++i) {
      const float p = f.x.data<float>()[i] * (b.numel() == f.x.numel() ? b.data<float>()[i] : b.data<float>()[i / plane]);
      const float q = std::nearbyint(p / s);
      y.data<int8_t>()[i] = std::isnan(q) ? int8_t(-128) : int8_t(std::clamp(q, -128.0f, 127.0f));
    }
    c.expected = {y};
    out.push_back(std::move(c));
  }
  return out;
}

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
