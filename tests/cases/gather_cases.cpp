// Transpose, Slice and Pad, which the device runs as gathers: int8 and float32, negative steps,
// ends past the edges, parameters computed as the graph runs (read on the host), Pad in every
// mode and both forms (inputs, and attributes before opset 11), cropping pads.
#include "tests/cases/op_case.h"

namespace q8 {

std::vector<OpCase> transpose_cases() {
  const FloatInputs& f = float_inputs();
  return {make_case("Transpose float32 [0, 2, 3, 1]", make_node("Transpose", {"x"}, {{"perm", Attribute::of_ints({0, 2, 3, 1})}}), {f.x},
                    {false}),
          make_case("Transpose int8 [3, 1, 0, 2]", make_node("Transpose", {"x"}, {{"perm", Attribute::of_ints({3, 1, 0, 2})}}), {f.q},
                    {false})};
}

std::vector<OpCase> slice_cases() {
  const FloatInputs& f = float_inputs();
  const Tensor starts = longs({4, 1}), ends = longs({-9, 7}), axes = longs({2, 3}), steps = longs({-2, 3});
  const Node n = make_node("Slice", {"x", "s", "e", "a", "t"});
  return {make_case("Slice float32", n, {f.x, starts, ends, axes, steps}, {false, true, true, true, true}),
          make_case("Slice int8", n, {f.q, starts, ends, axes, steps}, {false, true, true, true, true}),
          make_case("Slice float32, parameters computed as the graph runs", n, {f.x, starts, ends, axes, steps},
                    {false, false, false, true, false})};
}

std::vector<OpCase> pad_cases() {
  const FloatInputs& f = float_inputs();
  const Tensor pads = longs({0, 0, 1, 2, 1, 0, 2, 1}), crop_pads = longs({0, -1, 2, -2, 1, 0, 3, 1}), value = Tensor::scalar<int8_t>(-7);
  return {make_case("Pad int8 constant -7", make_node("Pad", {"x", "p", "v"}), {f.q, pads, value}, {false, true, true}),
          make_case("Pad float32 reflect", make_node("Pad", {"x", "p"}, {{"mode", Attribute::of_string("reflect")}}), {f.x, pads},
                    {false, true}),
          make_case("Pad float32, no constant_value: zeros", make_node("Pad", {"x", "p"}), {f.x, pads}, {false, true}),
          make_case("Pad float32 edge, cropping", make_node("Pad", {"x", "p"}, {{"mode", Attribute::of_string("edge")}}), {f.x2, crop_pads},
                    {false, true}),
          make_case("Pad float32, attributes (opset 2)",
                    make_node("Pad", {"x"}, {{"pads", Attribute::of_ints({0, 1, 2, 0, 1, 0, 1, 3})}, {"value", Attribute::of_float(2.5f)}}),
                    {f.x}, {false}, 2)};
}

}  // namespace q8
