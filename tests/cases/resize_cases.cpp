// Resize: linear in every coordinate mode (crop-and-resize with an extrapolation value), nearest
// on float32 and int8, scales and sizes, parameters computed as the graph runs (a detector's
// sizes from a Shape: read on the host).
#include "tests/cases/op_case.h"

namespace q8 {

std::vector<OpCase> resize_cases() {
  const FloatInputs& f = float_inputs();
  const Tensor up = floats({1, 1, 2, 2}), mixed = floats({1, 1, 0.5f, 1.5f}), leading = floats({1, 2, 1, 1}), none = floats({});
  const Tensor odd_sizes = longs({2, 3, 9, 4}), one_row = longs({2, 3, 1, 13}), roi = floats({0, 0, 0.2f, -0.1f, 1, 1, 0.9f, 1.3f});
  auto resize = [&](std::string mode, std::string coordinates) {
    return make_node("Resize", {"x", "roi", "scales", "sizes"},
                     {{"mode", Attribute::of_string(mode)}, {"coordinate_transformation_mode", Attribute::of_string(coordinates)},
                      {"extrapolation_value", Attribute::of_float(-7.5f)}});
  };
  const std::vector<bool> constant = {false, true, true, true};
  return {make_case("Resize linear half_pixel x2", resize("linear", "half_pixel"), {f.x2, none, up, none}, constant),
          make_case("Resize linear align_corners to sizes", resize("linear", "align_corners"), {f.x, none, none, odd_sizes}, constant),
          make_case("Resize linear asymmetric 0.5, 1.5", resize("linear", "asymmetric"), {f.x2, none, mixed, none}, constant),
          make_case("Resize linear pytorch_half_pixel to one row", resize("linear", "pytorch_half_pixel"), {f.x2, none, none, one_row},
                    constant),
          make_case("Resize linear tf_crop_and_resize", resize("linear", "tf_crop_and_resize"), {f.x2, roi, none, odd_sizes}, constant),
          make_case("Resize linear along channels", resize("linear", "half_pixel"), {f.x2, none, leading, none}, constant),
          make_case("Resize nearest half_pixel float32", resize("nearest", "half_pixel"), {f.x, none, up, none}, constant),
          make_case("Resize nearest asymmetric int8", resize("nearest", "asymmetric"), {f.q, none, mixed, none}, constant),
          make_case("Resize nearest align_corners int8 to sizes", resize("nearest", "align_corners"), {f.q, none, none, odd_sizes},
                    constant),
          make_case("Resize nearest, sizes computed as the graph runs", resize("nearest", "asymmetric"), {f.x, none, none, odd_sizes},
                    {false, true, true, false}),
          make_case("Resize nearest int8, scales computed as the graph runs", resize("nearest", "half_pixel"), {f.q, none, up, none},
                    {false, true, false, true})};
}

}  // namespace q8
