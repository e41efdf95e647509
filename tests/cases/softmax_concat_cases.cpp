// Softmax (the last axis, axis 1, and opset 11's coercion to 2-D over Exp's whole range) and
// Concat of float32 and int8 values.
#include "tests/cases/op_case.h"

namespace q8 {

std::vector<OpCase> softmax_cases() {
  const FloatInputs& f = float_inputs();
  return {make_case("Softmax last axis", make_node("Softmax", {"x"}), {f.x2}, {false}),
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
