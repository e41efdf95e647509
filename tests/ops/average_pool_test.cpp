// AveragePool's 2-D walk (engine/ops/average_pool.cpp: borders a window at a time, the interior a
// run of columns at a time) against the definition written here, bit for bit: per output the taps
// iy = oy·s − pad + ky·d (and the same in x) that lie inside the plane, summed from +0 in row-major
// order, divided by their number (count_include_pad = 0) or by the window positions inside the
// padded plane (count_include_pad = 1); NaN and infinities in the input stay where their windows are.
#include <gtest/gtest.h>

#include <bit>
#include <limits>
#include <random>

#include "tests/ops/op_harness.h"
#include "tests/ops/pool_windows.h"

namespace q8 {
namespace {

void check_average(const Window2d& c, bool include_pad) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> value(-3.0f, 3.0f);
  Tensor x(DType::Float32, {c.n, c.c, c.h, c.w});
  int64_t i = 0;
  for (float& v : x.values<float>()) {
    v = value(rng) * (i % 3 == 0 ? 1e4f : 1.0f);  // sums whose order shows in the last bits
    if (i % 997 == 500) v = std::numeric_limits<float>::infinity();
    if (i % 1499 == 700) v = std::numeric_limits<float>::quiet_NaN();
    ++i;
  }
  Node node = pool_node("AveragePool", c);
  node.attributes["count_include_pad"] = Attribute::of_int(include_pad);
  const Tensor y = run_op(node, {&x}, 19)[0];
  const int64_t oh = pool_out_size(c.h, c.kh, c.sh, c.top, c.bottom, c.dh, c.ceil);
  const int64_t ow = pool_out_size(c.w, c.kw, c.sw, c.left, c.right, c.dw, c.ceil);
  ASSERT_EQ(y.dims(), (Dims{c.n, c.c, oh, ow}));
  for (int64_t plane = 0; plane < c.n * c.c; ++plane)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox) {
        float sum = 0;
        int64_t inside = 0, padded = 0;
        for (int64_t ky = 0; ky < c.kh; ++ky)
          for (int64_t kx = 0; kx < c.kw; ++kx) {
            const int64_t iy = oy * c.sh - c.top + ky * c.dh, ix = ox * c.sw - c.left + kx * c.dw;
            padded += iy >= -c.top && iy < c.h + c.bottom && ix >= -c.left && ix < c.w + c.right;
            if (iy >= 0 && iy < c.h && ix >= 0 && ix < c.w) sum += x.data<float>()[(plane * c.h + iy) * c.w + ix], ++inside;
          }
        const int64_t count = include_pad ? padded : inside;
        const float want = count ? sum / float(count) : 0.0f;
        ASSERT_EQ(std::bit_cast<uint32_t>(y.data<float>()[(plane * oh + oy) * ow + ox]), std::bit_cast<uint32_t>(want))
            << "window " << c.kh << "x" << c.kw << " plane " << plane << ", output " << oy << "," << ox << (include_pad ? ", pads counted" : "");
      }
}

TEST(AveragePool2d, MatchesTheDefinitionBitForBit) {
  for (const Window2d& c : kPoolWindows) check_average(c, false);
}

TEST(AveragePool2d, CountIncludePadDividesByThePaddedWindow) {
  for (const Window2d& c : kPoolWindows) check_average(c, true);
}

}  // namespace
}  // namespace q8
