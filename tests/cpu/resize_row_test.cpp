// The AVX-512 row of a linear Resize (engine/cpu/resize_row.h) against the scalar loop as
// engine/ops/resize_common.cpp writes it, bit for bit: weights of 0 (whose corner is skipped, so
// an infinity or NaN there does not reach the sum), −0, tiny and ordinary weights, infinities and
// NaNs in the input, rows of every length around 16 lanes, columns in any order.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "engine/cpu/gemm.h"
#include "engine/cpu/resize_row.h"

namespace q8 {
namespace {

float scalar_column(const LinearResizeRow& r, int64_t i) {
  float sum = 0, wt;
  if ((wt = 1 * r.wh0 * r.w0[i]) != 0) sum += wt * r.row0[r.c0[i]];
  if ((wt = 1 * r.wh1 * r.w0[i]) != 0) sum += wt * r.row1[r.c0[i]];
  if ((wt = 1 * r.wh0 * r.w1[i]) != 0) sum += wt * r.row0[r.c1[i]];
  if ((wt = 1 * r.wh1 * r.w1[i]) != 0) sum += wt * r.row1[r.c1[i]];
  return sum;
}

TEST(LinearResizeRow, Avx512GivesTheScalarLoopsBits) {
  if (gemm_isa() != "avx512") GTEST_SKIP() << "no AVX-512 here (or Q8_MAX_CPU_ISA caps it): the scalar loop runs";
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> value(-50.0f, 50.0f), weight(0.0f, 1.0f);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t width : {1, 5, 16, 17, 40}) {
    std::vector<float> row0(static_cast<size_t>(width)), row1(static_cast<size_t>(width));
    for (int64_t i = 0; i < width; ++i) {
      row0[size_t(i)] = i % 9 == 4 ? inf : i % 11 == 6 ? nan : value(rng);
      row1[size_t(i)] = i % 7 == 3 ? -inf : i % 5 == 2 ? value(rng) * 1e-30f : value(rng) * 3.3f;
    }
    for (int64_t n : {1, 15, 16, 33, 64}) {
      std::vector<int32_t> c0(static_cast<size_t>(n)), c1(static_cast<size_t>(n));
      std::vector<float> w0(static_cast<size_t>(n)), w1(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        c0[size_t(i)] = int32_t(rng() % uint32_t(width)), c1[size_t(i)] = int32_t(rng() % uint32_t(width));
        const int kind = int(rng() % 5);
        w1[size_t(i)] = kind == 0 ? 0.0f : kind == 1 ? -0.0f : kind == 2 ? 1e-38f : weight(rng);
        w0[size_t(i)] = 1.0f - w1[size_t(i)];
      }
      for (float wh1 : {0.0f, 0.25f, 0.7f, 1.0f}) {
        std::vector<float> got(size_t(n) + 1, 123.0f);
        const LinearResizeRow r{row0.data(), row1.data(), 1.0f - wh1, wh1, c0.data(), c1.data(), w0.data(), w1.data(), got.data()};
        ASSERT_EQ(linear_resize_row_avx512(r, n), n);
        for (int64_t i = 0; i < n; ++i)
          ASSERT_EQ(std::bit_cast<uint32_t>(got[size_t(i)]), std::bit_cast<uint32_t>(scalar_column(r, i)))
              << "width " << width << " n " << n << " wh1 " << wh1 << " column " << i;
        EXPECT_EQ(got[size_t(n)], 123.0f) << "wrote past the row";
      }
    }
  }
}

}  // namespace
}  // namespace q8
