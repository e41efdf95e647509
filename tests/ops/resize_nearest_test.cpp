// Resize in nearest mode on every element width a plan carries (int8, uint8, float16's 2 bytes,
// float32, int64) against the definition written here from ONNX's Resize: an output index o reads
// the input index nearest(x_original(o)) clamped to the axis, with x_original per
// coordinate_transformation_mode and the rounding per nearest_mode. Both the row walk over the
// last two axes (engine/ops/resize_common.cpp) and the general walk (a leading axis resized) run.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/ops/op_harness.h"

namespace q8 {
namespace {

struct NearestCase {
  std::string coordinates, rounding;
  Dims in, out;  // sizes given
};

double original(int64_t o, int64_t in_len, int64_t out_len, const std::string& mode) {
  const double scale = double(out_len) / double(in_len);
  if (mode == "asymmetric") return o / scale;
  if (mode == "half_pixel") return (o + 0.5) / scale - 0.5;
  if (mode == "align_corners") return out_len == 1 ? 0.0 : o * double(in_len - 1) / double(out_len - 1);
  return (o + 0.5) / scale;  // tf_half_pixel_for_nn
}

int64_t nearest(double x, const std::string& rounding, int64_t in_len) {
  double i;
  if (rounding == "floor") i = std::floor(x);
  else if (rounding == "ceil") i = std::ceil(x);
  else if (x - std::floor(x) == 0.5) i = rounding == "round_prefer_ceil" ? std::ceil(x) : std::floor(x);
  else i = std::round(x);
  return std::min<int64_t>(std::max<int64_t>(int64_t(i), 0), in_len - 1);
}

template <typename T>
void check_nearest(const NearestCase& c, DType dtype) {
  std::mt19937 rng(5);
  Tensor x(dtype, c.in);
  T* px = reinterpret_cast<T*>(x.raw());
  for (int64_t i = 0; i < x.numel(); ++i) px[i] = T(rng());
  Node node;
  node.op_type = "Resize";
  node.name = "resize";
  node.inputs = {"x", "roi", "scales", "sizes"};
  node.outputs = {"y"};
  node.attributes["mode"] = Attribute::of_string("nearest");
  node.attributes["coordinate_transformation_mode"] = Attribute::of_string(c.coordinates);
  node.attributes["nearest_mode"] = Attribute::of_string(c.rounding);
  Tensor sizes(DType::Int64, {int64_t(c.out.size())});
  for (size_t d = 0; d < c.out.size(); ++d) sizes.data<int64_t>()[d] = c.out[d];
  const Tensor y = run_op(node, {&x, nullptr, nullptr, &sizes}, 13)[0];
  ASSERT_EQ(y.dims(), c.out);
  ASSERT_EQ(y.dtype(), dtype);
  const size_t rank = c.in.size();
  std::vector<int64_t> idx(rank, 0);
  const T* py = reinterpret_cast<const T*>(y.raw());
  for (int64_t o = 0; o < y.numel(); ++o) {
    int64_t source = 0;
    for (size_t d = 0; d < rank; ++d)
      source = source * c.in[d] + nearest(original(idx[d], c.in[d], c.out[d], c.coordinates), c.rounding, c.in[d]);
    ASSERT_EQ(py[o], px[source]) << c.coordinates << "/" << c.rounding << " " << dims_to_string(c.in) << " → "
                                 << dims_to_string(c.out) << ", dtype " << dtype_name(dtype) << ", flat output " << o;
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < c.out[d]) break;
      idx[d] = 0;
    }
  }
}

const std::vector<NearestCase>& cases() {
  static const std::vector<NearestCase> all = {
      {"asymmetric", "floor", {1, 3, 5, 7}, {1, 3, 10, 14}},             // ×2, a detector's upsample
      {"half_pixel", "round_prefer_floor", {2, 2, 7, 9}, {2, 2, 3, 5}},  // down, odd sizes
      {"align_corners", "round_prefer_ceil", {1, 1, 4, 6}, {1, 1, 9, 13}},
      {"tf_half_pixel_for_nn", "ceil", {1, 2, 6, 5}, {1, 2, 4, 11}},
      {"half_pixel", "round_prefer_ceil", {1, 4, 3, 3}, {1, 4, 1, 8}},   // one output row
      {"asymmetric", "round_prefer_floor", {2, 3, 4, 5}, {4, 3, 8, 5}},  // a leading axis: the general walk
  };
  return all;
}

TEST(ResizeNearest, EveryElementWidthPicksTheDefinitionsElement) {
  for (const NearestCase& c : cases()) {
    check_nearest<int8_t>(c, DType::Int8);
    check_nearest<uint8_t>(c, DType::Uint8);
    check_nearest<uint16_t>(c, DType::Float16);
    check_nearest<uint32_t>(c, DType::Float32);  // bit patterns: every value, NaNs included, moves as it is
    check_nearest<int64_t>(c, DType::Int64);
  }
}

}  // namespace
}  // namespace q8
