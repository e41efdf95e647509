// The ops whose output is their input's buffer with other dims, on int8 (a plan's carriers) and
// float32.
#include "tests/cases/op_case.h"

namespace q8 {

std::vector<OpCase> reshape_cases() {
  const FloatInputs& f = float_inputs();
  const Tensor shape = longs({0, -1});
  const Node n = make_node("Reshape", {"x", "shape"});
  return {make_case("Reshape int8 to [0, -1]", n, {f.q, shape}, {false, true}),
          make_case("Reshape float32 to [0, -1]", n, {f.x, shape}, {false, true}),
          make_case("Reshape float32, shape computed as the graph runs", n, {f.x, longs({6, 5, -1})}, {false, false})};
}

std::vector<OpCase> flatten_cases() {
  const FloatInputs& f = float_inputs();
  return {make_case("Flatten int8 at axis 2", make_node("Flatten", {"x"}, {{"axis", Attribute::of_int(2)}}), {f.q}, {false}),
          make_case("Flatten float32 at axis 1", make_node("Flatten", {"x"}, {{"axis", Attribute::of_int(1)}}), {f.x}, {false})};
}

std::vector<OpCase> squeeze_cases() {
  const FloatInputs& f = float_inputs();
  return {make_case("Squeeze float32 axis 1", make_node("Squeeze", {"x", "axes"}), {f.thin, longs({1})}, {false, true}),
          make_case("Squeeze int8 (opset 11, axes attribute)", make_node("Squeeze", {"x"}, {{"axes", Attribute::of_ints({1})}}),
                    {f.q.reshaped({2, 1, 3, 35})}, {false}, 11)};
}

std::vector<OpCase> unsqueeze_cases() {
  const FloatInputs& f = float_inputs();
  return {make_case("Unsqueeze float32 axes 0, -1", make_node("Unsqueeze", {"x", "axes"}), {f.x, longs({0, -1})}, {false, true}),
          make_case("Unsqueeze int8, axes computed as the graph runs", make_node("Unsqueeze", {"x", "axes"}), {f.q, longs({1})},
                    {false, false}),
          make_case("Unsqueeze int8 (opset 11, axes attribute)", make_node("Unsqueeze", {"x"}, {{"axes", Attribute::of_ints({2})}}),
                    {f.q}, {false}, 11)};
}

std::vector<OpCase> identity_cases() {
  const FloatInputs& f = float_inputs();
  return {make_case("Identity int8", make_node("Identity", {"x"}), {f.q}, {false}),
          make_case("Identity float32", make_node("Identity", {"x"}), {f.x}, {false})};
}

// Dropout at inference: its data, with the ratio and training_mode absent, or given as Swin's export
// gives them (ratio 0, training_mode true: still the identity).
std::vector<OpCase> dropout_cases() {
  const FloatInputs& f = float_inputs();
  Tensor yes(DType::Bool, {});
  yes.data<bool>()[0] = true;
  return {make_case("Dropout float32", make_node("Dropout", {"x"}), {f.x}, {false}),
          make_case("Dropout int8, ratio 0 and training_mode true", make_node("Dropout", {"x", "r", "t"}),
                    {f.q, Tensor::scalar<float>(0.0f), yes}, {false, true, true})};
}

// A Cast from float32 to float32 (what a float16 model's Casts become): the input itself; Casts of
// other types the device declines for a reason no capability explains, so they have no case.
std::vector<OpCase> cast_cases() {
  const FloatInputs& f = float_inputs();
  return {make_case("Cast float32 to float32", make_node("Cast", {"x"}, {{"to", Attribute::of_int(1)}}), {f.x}, {false})};
}

}  // namespace q8
