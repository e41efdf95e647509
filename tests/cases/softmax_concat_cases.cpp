// Softmax (the last axis, axis 1, and opset 11's coercion to 2-D over Exp's whole range) and
// Concat of float32 and int8 values.
#include "tests/cases/op_case.h"

namespace q8 {

std::vector<OpCase> softmax_cases() {
  const FloatInputs& f = float_inputs();
  // Rows of 200 (a partial last round of the 64 lanes) spanning e^-20 to 1 of each row's max, so
  // that a sum in another order than plane_sum.h's rounds differently; along axis 1, 3 apart.
  std::mt19937 rng(8);
  Tensor wide = random_float({2, 200, 3}, rng, -20.0f, 0.0f);
  // Rows past the values OpenCL's lanes hold in registers (64 · 8): read again from memory there.
  Tensor long_rows = random_float({3, 700}, rng, -20.0f, 0.0f);
  return {make_case("Softmax rows of 200", make_node("Softmax", {"x"}, {{"axis", Attribute::of_int(1)}}), {wide}, {false}),
          make_case("Softmax rows of 700", make_node("Softmax", {"x"}), {long_rows}, {false}),
          make_case("Softmax last axis", make_node("Softmax", {"x"}), {f.x2}, {false}),
          make_case("Softmax axis 1", make_node("Softmax", {"x"}, {{"axis", Attribute::of_int(1)}}), {f.x}, {false}),
          make_case("Softmax axis 1 coerced to 2-D (opset 11)", make_node("Softmax", {"x"}, {{"axis", Attribute::of_int(1)}}), {f.tails},
                    {false}, 11)};
}

std::vector<OpCase> concat_cases() {
  const FloatInputs& f = float_inputs();
  return {make_case("Concat float32 axis 1, three inputs", make_node("Concat", {"a", "b", "c"}, {{"axis", Attribute::of_int(1)}}),
                    {f.x, f.thin, f.x2}, {false, false, false}),
          make_case("Concat float32 axis -1", make_node("Concat", {"a", "b"}, {{"axis", Attribute::of_int(-1)}}), {f.x2, f.x},
                    {false, false}),
          make_case("Concat int8 axis 0", make_node("Concat", {"a", "b"}, {{"axis", Attribute::of_int(0)}}), {f.q, f.q}, {false, false})};
}

}  // namespace q8
