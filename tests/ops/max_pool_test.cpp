// MaxPool on a plan's int8 and uint8 activations (engine/ops/max_pool.cpp's 2-D walk) against the
// definition written here: y[n, c, oy, ox] = max over the taps iy = oy·s − pad + ky·d (and the
// same in x) that lie inside the plane; with ceil_mode a last window may start in the padding.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "tests/ops/op_harness.h"
#include "tests/ops/pool_windows.h"

namespace q8 {
namespace {

template <typename T>
void check_pool(const Window2d& c, DType dtype) {
  std::mt19937 rng(9);
  Tensor x(dtype, {c.n, c.c, c.h, c.w});
  for (T& v : x.values<T>()) v = T(rng());
  const Node node = pool_node("MaxPool", c);
  const Tensor y = run_op(node, {&x}, 12)[0];
  const int64_t oh = pool_out_size(c.h, c.kh, c.sh, c.top, c.bottom, c.dh, c.ceil), ow = pool_out_size(c.w, c.kw, c.sw, c.left, c.right, c.dw, c.ceil);
  ASSERT_EQ(y.dims(), (Dims{c.n, c.c, oh, ow}));
  ASSERT_EQ(y.dtype(), dtype);
  for (int64_t plane = 0; plane < c.n * c.c; ++plane)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox) {
        T want = std::numeric_limits<T>::lowest();
        for (int64_t ky = 0; ky < c.kh; ++ky)
          for (int64_t kx = 0; kx < c.kw; ++kx) {
            const int64_t iy = oy * c.sh - c.top + ky * c.dh, ix = ox * c.sw - c.left + kx * c.dw;
            if (iy >= 0 && iy < c.h && ix >= 0 && ix < c.w) want = std::max(want, x.data<T>()[(plane * c.h + iy) * c.w + ix]);
          }
        ASSERT_EQ(int(y.data<T>()[(plane * oh + oy) * ow + ox]), int(want)) << "plane " << plane << ", output " << oy << "," << ox;
      }
}

TEST(MaxPoolInteger, Int8MatchesTheDefinition) {
  for (const Window2d& c : kPoolWindows) check_pool<int8_t>(c, DType::Int8);
}

TEST(MaxPoolInteger, Uint8MatchesTheDefinition) {
  for (const Window2d& c : kPoolWindows) check_pool<uint8_t>(c, DType::Uint8);
}

}  // namespace
}  // namespace q8
