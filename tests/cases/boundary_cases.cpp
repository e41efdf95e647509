// QuantizeLinear and DequantizeLinear, the plan's boundaries: ties, values past the int8 range,
// ±inf (QuantizeLinear of NaN has no defined int8), a zero point of 0 and of −3.
#include "tests/cases/op_case.h"

namespace q8 {

std::vector<OpCase> quantize_linear_cases() {
  const FloatInputs& f = float_inputs();
  const Tensor scale = Tensor::scalar<float>(0.3f), zero = Tensor::scalar<int8_t>(0), shifted = Tensor::scalar<int8_t>(-3);
  const Node q = make_node("QuantizeLinear", {"x", "s", "z"});
  return {make_case("QuantizeLinear, zero point 0", q, {f.finite, scale, zero}, {false, true, true}),
          make_case("QuantizeLinear, zero point -3", q, {f.finite, scale, shifted}, {false, true, true})};
}

std::vector<OpCase> dequantize_linear_cases() {
  const FloatInputs& f = float_inputs();
  const Tensor scale = Tensor::scalar<float>(0.3f), shifted = Tensor::scalar<int8_t>(-3);
  return {make_case("DequantizeLinear", make_node("DequantizeLinear", {"q", "s"}), {f.q, scale}, {false, true}),
          make_case("DequantizeLinear, zero point -3", make_node("DequantizeLinear", {"q", "s", "z"}), {f.q, scale, shifted},
                    {false, true, true})};
}

}  // namespace q8
