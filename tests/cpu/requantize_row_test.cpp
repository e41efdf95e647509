// The CPU INT8 backend's vectorized epilogue (engine/cpu/requantize_row.h), each instruction set
// the CPU has, against the formulas of docs/quantization.md written here independently in scalar
// C++ ("Requantization"; "Residual Add": the plain residual sum and the two rounded forms), over
// accumulators of every magnitude, ties, saturation, Relu/Clip bounds and residuals of every
// value, AVX-512's padded tail included; and where acc + b leaves int32 each stops before that
// vector, so the caller's scalar loop reports the overflow. requantize_row() itself follows Q8_MAX_CPU_ISA (ctest runs it capped).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/cpu/requantize_row.h"

namespace q8 {
namespace {

float rne_clamp(float g, float lo, float hi) {
  const float r = std::nearbyint(g);
  return r < lo ? lo : r > hi ? hi : r;
}

// The formula, one element (the test is built without FP contraction: a * b + c is two roundings).
int8_t formula(const RequantizeRow& q, int64_t i) {
  const int32_t t = q.acc[i] + q.bias[i];
  const float lo = float(q.lo), hi = float(q.hi);
  if (!q.residual) return int8_t(rne_clamp(float(t) * q.m[i], lo, hi));
  const float r = float(q.residual[i]);
  if (q.mode == ResidualSum::Plain) return int8_t(rne_clamp(std::fma(float(t), q.m[i], r * q.r_scale), lo, hi));
  const float y = rne_clamp(float(t) * q.m[i], -128.0f, 127.0f);
  if (q.mode == ResidualSum::Rounded) return int8_t(rne_clamp(std::fma(y, q.y_ratio, r * q.r_scale), lo, hi));
  return int8_t(rne_clamp(std::fma(r, q.r_scale, y * q.y_ratio), lo, hi));
}

using Body = int64_t (*)(const RequantizeRow&, int64_t);

struct VectorBody {
  Body body;
  int64_t width;
  bool padded_tail;  // covers n (its tail padded to a vector), not only whole vectors
  int64_t covers(int64_t n) const { return padded_tail ? n : n / width * width; }
};

// The bodies this CPU runs.
std::vector<VectorBody> bodies() {
  __builtin_cpu_init();
  std::vector<VectorBody> out;
  if (__builtin_cpu_supports("avx512bw")) out.push_back({requantize_row_avx512, 16, true});
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) out.push_back({requantize_row_avx2, 8, false});
  return out;
}

TEST(RequantizeRow, FormulaForEveryModeMagnitudeAndBound) {
  if (bodies().empty()) GTEST_SKIP() << "neither AVX-512 nor AVX2 with FMA here";
  std::mt19937 rng(7);
  const int64_t n = 4099;  // not a multiple of 8 or 16: AVX2 leaves the tail to the caller
  std::vector<int32_t> acc(n), b(n);
  std::vector<float> m(n);
  std::vector<int8_t> r(n), y(n + 1);
  for (int64_t i = 0; i < n; ++i) {
    const int shift = int(rng() % 31);
    acc[size_t(i)] = int32_t(rng() >> (shift + 2)) * (rng() % 2 ? 1 : -1);
    b[size_t(i)] = int32_t(rng() % 20001) - 10000;
    m[size_t(i)] = std::ldexp(float(rng() % 1000 + 1), -int(rng() % 30));
    r[size_t(i)] = int8_t(int(rng() % 256) - 128);
  }
  for (int64_t i = 0; i < 64; ++i) acc[size_t(i)] = int32_t(i) - 32, b[size_t(i)] = 0, m[size_t(i)] = 0.5f;  // ties
  int checked = 0;
  // n and n − 16: AVX-512 packs 64 values at a time, then single vectors (none left of 4096, three of 4080).
  for (const VectorBody& v : bodies())
    for (int64_t len : {n, n - 16})
    for (int mode : {-1, 0, 1, 2})
      for (const auto& [lo, hi] : std::vector<std::pair<int32_t, int32_t>>{{-128, 127}, {0, 127}, {-20, 45}, {-128, 60}}) {
        RequantizeRow q{acc.data(), b.data(), m.data(), mode < 0 ? nullptr : r.data(), ResidualSum(std::max(mode, 0)), 0.37f, 1.9f, lo, hi,
                        y.data()};
        std::fill(y.begin(), y.end(), int8_t(77));
        const int64_t done = v.body(q, len);
        EXPECT_EQ(done, v.covers(len));
        EXPECT_EQ(y[size_t(len)], int8_t(77)) << "wrote past the row";
        int differ = 0;
        for (int64_t i = 0; i < done; ++i, ++checked)
          if (y[size_t(i)] != formula(q, i) && ++differ <= 3)
            ADD_FAILURE() << "width " << v.width << " mode " << mode << " acc " << acc[size_t(i)] << " b " << b[size_t(i)] << " m "
                          << m[size_t(i)] << " r " << int(r[size_t(i)]) << ": " << int(y[size_t(i)]) << ", formula " << int(formula(q, i));
      }
  EXPECT_GT(checked, 0);
}

TEST(RequantizeRow, StopsBeforeAnOverflowingVector) {
  for (const VectorBody& v : bodies()) {
    std::vector<int32_t> acc(64, 5), b(64, 1);
    std::vector<float> m(64, 1.0f);
    std::vector<int8_t> y(64);
    const RequantizeRow q{acc.data(), b.data(), m.data(), nullptr, ResidualSum::Plain, 0.0f, 0.0f, -128, 127, y.data()};
    acc[37] = std::numeric_limits<int32_t>::max();
    EXPECT_EQ(v.body(q, 64), 37 / v.width * v.width);
    acc[37] = std::numeric_limits<int32_t>::min(), b[37] = -1;
    EXPECT_EQ(v.body(q, 64), 37 / v.width * v.width);
    EXPECT_EQ(y[0], 6);
    // A tail only a padded vector covers: 61 of 64 values, the overflow at 60; then one at 62, past
    // n, which is not read.
    acc[37] = 5, b[37] = 1, acc[60] = std::numeric_limits<int32_t>::max();
    EXPECT_EQ(v.body(q, 61), v.padded_tail ? 48 : 56);
    acc[60] = 5, acc[62] = std::numeric_limits<int32_t>::max();
    EXPECT_EQ(v.body(q, 61), v.covers(61));
    if (v.padded_tail) {
      EXPECT_EQ(y[60], 6);
    }
  }
}

TEST(RequantizeRow, DispatchFollowsQ8MaxCpuIsa) {
  const char* cap = std::getenv("Q8_MAX_CPU_ISA");
  std::vector<int32_t> acc(64, 3), b(64, 0);
  std::vector<float> m(64, 1.0f);
  std::vector<int8_t> y(64);
  const int64_t done = requantize_row({acc.data(), b.data(), m.data(), nullptr, ResidualSum::Plain, 0.0f, 0.0f, -128, 127, y.data()}, 63);
  const std::string capped = cap ? cap : "";
  if (capped == "scalar") {
    EXPECT_EQ(done, 0);
  }
  if (capped == "avx2") {
    EXPECT_EQ(done % 8, 0);
  }
  EXPECT_LE(done, 63);
}

}  // namespace
}  // namespace q8
