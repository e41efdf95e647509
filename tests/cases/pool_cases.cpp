// MaxPool on int8 (a plan's carrier: strides, pads, dilations, ceil mode) and GlobalAveragePool on
// float32.
#include <cmath>

#include "tests/cases/op_case.h"

namespace q8 {

std::vector<OpCase> max_pool_cases() {
  std::mt19937 rng(5);
  struct PoolCase {
    Dims x;
    std::vector<int64_t> kernel, strides, pads, dilations;
    int64_t ceil = 0;
  };
  const std::vector<PoolCase> pools = {{{1, 3, 7, 9}, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}},
                                       {{2, 5, 13, 13}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}},
                                       {{1, 4, 17, 31}, {3, 2}, {1, 3}, {1, 0, 2, 1}, {2, 1}},
                                       {{1, 2, 8, 8}, {3, 3}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1}};
  std::vector<OpCase> out;
  for (const PoolCase& c : pools) {
    const Node pool = make_node("MaxPool", {"x"}, {{"kernel_shape", Attribute::of_ints(c.kernel)}, {"strides", Attribute::of_ints(c.strides)},
                                                    {"pads", Attribute::of_ints(c.pads)}, {"dilations", Attribute::of_ints(c.dilations)},
                                                    {"ceil_mode", Attribute::of_int(c.ceil)}});
    out.push_back(make_case("MaxPool int8 " + dims_to_string(c.x), pool, {random_int8(c.x, rng)}, {false}));
  }
  return out;
}

std::vector<OpCase> global_average_pool_cases() {
  // Planes of 1,517 values (many rounds of the 64 lanes, a partial last one) mixing magnitudes from
  // 1e-3 to 1e7, so that a sum in another order than engine/ops/plane_sum.h's rounds differently.
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  Tensor wide(DType::Float32, {2, 3, 37, 41});
  for (int64_t i = 0; i < wide.numel(); ++i) wide.data<float>()[i] = unit(rng) * std::pow(10.0f, float(i % 11) - 3.0f);
  // 65 planes of 7 × 7 (a squeeze-excitation pool's: fewer values than lanes; planes not a whole
  // number of work-groups).
  Tensor small(DType::Float32, {5, 13, 7, 7});
  for (int64_t i = 0; i < small.numel(); ++i) small.data<float>()[i] = unit(rng) * std::pow(10.0f, float(i % 7) - 2.0f);
  return {make_case("GlobalAveragePool, 65 planes of 7x7", make_node("GlobalAveragePool", {"x"}), {small}, {false}),
          make_case("GlobalAveragePool", make_node("GlobalAveragePool", {"x"}), {float_inputs().x}, {false}),
          make_case("GlobalAveragePool, -110 to 90", make_node("GlobalAveragePool", {"x"}), {float_inputs().tails}, {false}),
          make_case("GlobalAveragePool, 37x41 planes from 1e-3 to 1e7", make_node("GlobalAveragePool", {"x"}), {wide}, {false})};
}

}  // namespace q8
