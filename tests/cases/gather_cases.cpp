// Gather (of activations), Transpose, Slice, Pad, Expand, Tile, Split, DepthToSpace and SpaceToDepth, which the device runs
// as gathers: int8 and float32, negative steps, ends past the edges, parameters computed as the
// graph runs (read on the host), Pad in every mode and both forms (inputs, and attributes before
// opset 11), cropping pads; Expand to more axes (a class token to the batch), Split into unequal
// parts and by num_outputs (opset 18), both DepthToSpace modes.
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

std::vector<OpCase> expand_cases() {
  const FloatInputs& f = float_inputs();
  std::mt19937 rng(8);
  const Tensor token = random_float({1, 1, 6}, rng, -1.0f, 1.0f);
  return {make_case("Expand float32 [1, 1, 6] to [4, 1, 6] (a class token to the batch)", make_node("Expand", {"x", "s"}),
                    {token, longs({4, 1, 6})}, {true, true}),
          make_case("Expand int8 [2, 3, 5, 7] by [3, 1, 1, 1, 1]", make_node("Expand", {"x", "s"}), {f.q, longs({3, 1, 1, 1, 1})},
                    {false, true}),
          make_case("Expand float32, shape computed as the graph runs", make_node("Expand", {"x", "s"}), {f.x, longs({2, 1, 1, 1})},
                    {false, false})};
}

std::vector<OpCase> tile_cases() {
  const FloatInputs& f = float_inputs();
  return {make_case("Tile float32 by [1, 2, 1, 3]", make_node("Tile", {"x", "r"}), {f.x, longs({1, 2, 1, 3})}, {false, true}),
          make_case("Tile int8 by [2, 1, 1, 1]", make_node("Tile", {"x", "r"}), {f.q, longs({2, 1, 1, 1})}, {false, true})};
}

std::vector<OpCase> split_cases() {
  const FloatInputs& f = float_inputs();
  Node three = make_node("Split", {"x", "s"}, {{"axis", Attribute::of_int(-1)}});
  three.outputs = {"y0", "y1", "y2"};
  Node by_count = make_node("Split", {"x"}, {{"axis", Attribute::of_int(1)}, {"num_outputs", Attribute::of_int(2)}});
  by_count.outputs = {"y0", "y1"};
  Node halves = make_node("Split", {"x"}, {{"axis", Attribute::of_int(0)}});
  halves.outputs = {"y0", "y1"};
  return {make_case("Split float32 last axis into 2, 4, 1", three, {f.x, longs({2, 4, 1})}, {false, true}),
          make_case("Split int8 axis 1 into num_outputs 2 (3 = 2 + 1, opset 18)", by_count, {f.q}, {false}, 18),
          make_case("Split float32 axis 0 into equal parts (opset 11, no split attribute)", halves, {f.x2}, {false}, 11)};
}

std::vector<OpCase> depth_to_space_cases() {
  const FloatInputs& f = float_inputs();
  std::mt19937 rng(9);
  const Tensor x = random_float({2, 8, 3, 5}, rng, -4.0f, 4.0f);
  return {make_case("DepthToSpace float32 DCR, blocksize 2", make_node("DepthToSpace", {"x"}, {{"blocksize", Attribute::of_int(2)}}), {x},
                    {false}),
          make_case("DepthToSpace float32 CRD, blocksize 2",
                    make_node("DepthToSpace", {"x"}, {{"blocksize", Attribute::of_int(2)}, {"mode", Attribute::of_string("CRD")}}), {x},
                    {false}),
          make_case("DepthToSpace int8 blocksize 1", make_node("DepthToSpace", {"x"}, {{"blocksize", Attribute::of_int(1)}}), {f.q}, {false})};
}

std::vector<OpCase> space_to_depth_cases() {
  std::mt19937 rng(10);
  const Tensor x = random_float({2, 3, 6, 4}, rng, -4.0f, 4.0f);
  return {make_case("SpaceToDepth float32 blocksize 2", make_node("SpaceToDepth", {"x"}, {{"blocksize", Attribute::of_int(2)}}), {x},
                    {false}),
          make_case("SpaceToDepth int8 blocksize 2", make_node("SpaceToDepth", {"x"}, {{"blocksize", Attribute::of_int(2)}}),
                    {random_int8({1, 2, 4, 6}, rng)}, {false})};
}

std::vector<OpCase> gather_cases() {
  const FloatInputs& f = float_inputs();
  std::mt19937 rng(12);
  const Tensor table = random_float({9, 5}, rng, -1.0f, 1.0f);
  return {make_case("Gather float32 axis 1, a constant scalar index (a class token)", make_node("Gather", {"x", "i"}, {{"axis", Attribute::of_int(1)}}),
                    {f.x, Tensor::scalar<int64_t>(0)}, {false, true}),
          make_case("Gather int8 axis 3, indices [2, 2] with negatives", make_node("Gather", {"x", "i"}, {{"axis", Attribute::of_int(3)}}),
                    {f.q, longs({6, -1, 0, 2}).reshaped({2, 2})}, {false, true}),
          make_case("Gather float32 axis 0, indices computed as the graph runs", make_node("Gather", {"x", "i"}), {f.x2, longs({1, 0, 1})},
                    {false, false}),
          make_case("Gather of an embedding: a constant [9, 5] table, ids [2, 4] with a negative one, computed as the graph runs",
                    make_node("Gather", {"t", "i"}), {table, longs({3, 8, 0, -1, 4, 4, 7, 2}).reshaped({2, 4})}, {true, false}),
          make_case("Gather of an embedding: constant ids", make_node("Gather", {"t", "i"}), {table, longs({5, 1})}, {true, true})};
}

}  // namespace q8
