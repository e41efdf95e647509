// The float32 maps transformers keep in FP32 between their fused ops: Sqrt (correctly rounded on
// both sides: bit for bit), and Tanh, Erf and Gelu, which call the device's tanh and erf: within
// OpenCL's ulp bounds of the host's (tanh 5, erf 16; the host's own ≤ 2), so 32 units in the
// last place of |y|, and for Gelu also of x/2 · 2 (1 + erf(·) cancels where erf is near −1).
#include <cmath>

#include "tests/cases/op_case.h"

namespace q8 {

namespace {

// −40 to 40 with the awkward finite ones planted: ±0, a subnormal, the kinks, large magnitudes.
const Tensor& finite_wide() {
  static const Tensor t = [] {
    std::mt19937 rng(21);
    Tensor x = random_float({3, 7, 11}, rng, -40.0f, 40.0f);
    const float special[] = {0.0f, -0.0f, 1e-40f, -1e-40f, 1e-30f, 0.5f, -0.5f, 3.0f, -3.0f, 5.5f, -5.5f, 1e30f, -1e30f, 1e4f, -1e4f};
    for (size_t i = 0; i < std::size(special); ++i) x.data<float>()[i * 5] = special[i];
    return x;
  }();
  return t;
}

// 32 units in the last place of |y| (float32: 2⁻²³ relative), plus, for Gelu, of |x|.
OpCase within_ulps(OpCase c, float (*f)(float), bool gelu) {
  const Tensor& x = c.inputs[0];
  c.expect = Expect::Within;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double v = x.data<float>()[i], y = f(float(v));
    c.tolerance.push_back(32.0 * std::ldexp(1.0, -23) * (std::fabs(y) + (gelu ? std::fabs(v) : 0.0)) + 1e-37);
  }
  return c;
}

float erf_gelu(float x) { return 0.5f * x * (1.0f + std::erf(x * 0.7071067811865476f)); }
float tanh_gelu(float x) { return 0.5f * x * (1.0f + std::tanh(0.7978845608028654f * (x + 0.044715f * x * x * x))); }

}  // namespace

std::vector<OpCase> sqrt_cases() {
  const FloatInputs& f = float_inputs();  // negatives and NaN give NaN; ±0, ±inf, subnormal results
  return {make_case("Sqrt", make_node("Sqrt", {"x"}), {f.x}, {false}), make_case("Sqrt, -110 to 90", make_node("Sqrt", {"x"}), {f.tails}, {false})};
}

std::vector<OpCase> tanh_cases() {
  return {within_ulps(make_case("Tanh", make_node("Tanh", {"x"}), {finite_wide()}, {false}), [](float x) { return std::tanh(x); }, false)};
}

std::vector<OpCase> erf_cases() {
  return {within_ulps(make_case("Erf", make_node("Erf", {"x"}), {finite_wide()}, {false}), [](float x) { return std::erf(x); }, false)};
}

std::vector<OpCase> gelu_cases() {
  return {within_ulps(make_case("Gelu (erf)", make_node("Gelu", {"x"}), {finite_wide()}, {false}, 20), erf_gelu, true),
          within_ulps(make_case("Gelu approximate='tanh'", make_node("Gelu", {"x"}, {{"approximate", Attribute::of_string("tanh")}}),
                                {finite_wide()}, {false}, 20),
                      tanh_gelu, true)};
}

std::vector<OpCase> layer_normalization_cases() {
  const FloatInputs& f = float_inputs();
  std::mt19937 rng(5);
  const Tensor scale7 = random_float({7}, rng, -2.0f, 2.0f), bias7 = random_float({7}, rng, -1.0f, 1.0f);
  const Tensor scale35 = random_float({5, 7}, rng, -2.0f, 2.0f), bias_row = random_float({1, 7}, rng, -1.0f, 1.0f);
  const Tensor hidden = random_float({2, 13, 33}, rng, -8.0f, 8.0f);
  const Tensor scale33 = random_float({33}, rng, 0.5f, 1.5f), bias33 = random_float({33}, rng, -0.1f, 0.1f);
  // Rows of 300 (several rounds of the 64 lanes, a partial last one) mixing magnitudes 1e-3 to 1e4,
  // so that a sum in another order than plane_sum.h's rounds differently.
  Tensor wide = random_float({3, 300}, rng, -1.0f, 1.0f);
  for (int64_t i = 0; i < wide.numel(); ++i) wide.data<float>()[i] *= std::pow(10.0f, float(i % 8) - 3.0f);
  const Tensor scale300 = random_float({300}, rng, 0.5f, 1.5f);
  return {make_case("LayerNormalization rows of 300 from 1e-3 to 1e4", make_node("LayerNormalization", {"x", "s"}), {wide, scale300},
                    {false, true}, 17),
          make_case("LayerNormalization last axis, Scale and B", make_node("LayerNormalization", {"x", "s", "b"}), {f.x2, scale7, bias7},
                    {false, true, true}, 17),
          make_case("LayerNormalization axis -2, Scale [5, 7], B broadcast from [1, 7]",
                    make_node("LayerNormalization", {"x", "s", "b"}, {{"axis", Attribute::of_int(-2)}, {"epsilon", Attribute::of_float(1e-12f)}}),
                    {f.finite, scale35, bias_row}, {false, true, true}, 17),
          make_case("LayerNormalization without B, NaN and ±inf in rows", make_node("LayerNormalization", {"x", "s"}), {f.x, scale7},
                    {false, true}, 17),
          make_case("LayerNormalization hidden 33 (a transformer's rows)", make_node("LayerNormalization", {"x", "s", "b"}),
                    {hidden, scale33, bias33}, {false, true, true}, 17)};
}

}  // namespace q8
