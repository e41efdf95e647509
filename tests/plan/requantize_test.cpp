// Requantization against docs/quantization.md's worked examples and against the float
// arithmetic of DequantizeLinear → op → QuantizeLinear that it replaces.
#include "engine/plan/requantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/ir/error.h"

namespace q8 {
namespace {

TEST(Requantize, TiesRoundHalfToEven) {
  const ClampBounds full;
  EXPECT_EQ(requantize(5, 0.5f, full), 2);
  EXPECT_EQ(requantize(7, 0.5f, full), 4);
  EXPECT_EQ(requantize(-5, 0.5f, full), -2);
  EXPECT_EQ(requantize(3, 0.5f, full), 2);
  EXPECT_EQ(requantize(-3, 0.5f, full), -2);
  EXPECT_EQ(requantize(301, 0.5f, full), 127);
  EXPECT_EQ(requantize(-301, 0.5f, full), -128);
}

TEST(Requantize, AccumulatorAbove2To24RoundsToEvenOnConversion) {
  // 16,777,217 is not a float: (float)t = 16,777,216, and 16,777,216 · 2^-18 = 64.
  EXPECT_EQ(float(16777217), 16777216.0f);
  EXPECT_EQ(requantize(16777217, 0x1p-18f, {}), 64);
  EXPECT_EQ(requantize(-16777219, 0x1p-18f, {}), -64);  // a tie: → −16,777,220 (even), · 2^-18 = −64.0000153 → −64
}

TEST(Requantize, HugeProductsSaturate) {
  EXPECT_EQ(requantize(std::numeric_limits<int32_t>::max(), 255.0f, {}), 127);
  EXPECT_EQ(requantize(std::numeric_limits<int32_t>::min(), 255.0f, {}), -128);
}

TEST(Requantize, ReluAndClipFoldIntoBoundsExactly) {
  // Q(Clip(y, a, b)) = clamp(Q(y), Q(a), Q(b)) for every y, with QuantizeLinear's arithmetic.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-3.0f, 3.0f);
  for (int trial = 0; trial < 200; ++trial) {
    const float s = 0.001f + std::fabs(u(rng)) * 0.02f;
    const float a = u(rng), b = a + std::fabs(u(rng));
    const ClampBounds clip = fold_clip({}, a, b, s), relu = fold_relu({});
    for (int k = 0; k < 100; ++k) {
      const float y = u(rng) * 2.0f;
      const int32_t qy = quantize_value(y, s);
      EXPECT_EQ(std::clamp(qy, clip.lo, clip.hi), quantize_value(std::min(std::max(y, a), b), s)) << y << " " << a << " " << b;
      EXPECT_EQ(std::clamp(qy, relu.lo, relu.hi), quantize_value(std::max(y, 0.0f), s));
    }
  }
  EXPECT_EQ(fold_clip({}, 6.0f, 0.0f, 0.1f).lo, 0);  // min > max: ONNX's Clip gives max everywhere
  EXPECT_EQ(fold_clip({}, 6.0f, 0.0f, 0.1f).hi, 0);
  EXPECT_EQ(fold_clip({}, std::nullopt, 0.6f, 0.1f).lo, -128);
  EXPECT_EQ(fold_clip({}, std::nullopt, 0.6f, 0.1f).hi, 6);
  const ClampBounds negative_clip_then_relu = fold_relu(fold_clip({}, -2.0f, -1.0f, 0.1f));
  EXPECT_EQ(negative_clip_then_relu.lo, 0);
  EXPECT_EQ(negative_clip_then_relu.hi, 0);
}

TEST(Requantize, ConcatTableEqualsDequantizeThenQuantize) {
  const float s_in = 0.0371f, s_out = 0.0513f;
  const auto t = requant_table(s_in, s_out);
  for (int v = -128; v <= 127; ++v) {
    const float x = float(v) * s_in;
    const float expected = std::clamp(std::nearbyint(x / s_out), -128.0f, 127.0f);
    EXPECT_EQ(t[size_t(v + 128)], int8_t(expected)) << v;
  }
  const auto identity = requant_table(s_in, s_in);
  for (int v = -128; v <= 127; ++v) EXPECT_EQ(identity[size_t(v + 128)], v);
}

TEST(Requantize, ResidualIsOneFusedMultiplyAdd) {
  // g = fma(t, M, r · R): with M = 0.5, R = 0.25, t = 3, r = 2: 1.5 + 0.5 = 2.0 → 2; t = 1, r = 2:
  // 0.5 + 0.5 = 1.0; t = 1, r = 0: 0.5 → 0 (tie to even); t = 3, r = 0: 1.5 → 2.
  EXPECT_EQ(requantize_residual(3, 0.5f, 2, 0.25f, {}), 2);
  EXPECT_EQ(requantize_residual(1, 0.5f, 2, 0.25f, {}), 1);
  EXPECT_EQ(requantize_residual(1, 0.5f, 0, 0.25f, {}), 0);
  EXPECT_EQ(requantize_residual(3, 0.5f, 0, 0.25f, {}), 2);
  EXPECT_EQ(requantize_residual(-200, 1.0f, -100, 1.0f, fold_relu({})), 0);
  // With no skip value the fused form is the plain multiply.
  const float m = 1.0f / 3.0f;
  const int32_t t = 3 * 1000001;
  EXPECT_EQ(requantize_residual(t, m, 0, 0.0f, {}), requantize(t, m, {}));
}

TEST(Requantize, MultiplierAndBiasAreComputedAsDocumented) {
  const float sx = 0.0123f, sw = 0.00456f, sy = 0.0789f;
  const float bias_scale = sx * sw;
  EXPECT_EQ(requant_multiplier(sx, sw, sy), bias_scale / sy);
  EXPECT_EQ(quantize_bias(0.5f, sx, sw), std::nearbyint(0.5 / (double(sx) * double(sw))));
  EXPECT_EQ(quantize_bias(-0.0f, sx, sw), 0.0);
  EXPECT_EQ(scale_ratio(0.3f, 0.1f), 0.3f / 0.1f);
}

TEST(Requantize, GuardsNameTheRule) {
  EXPECT_NO_THROW(check_multiplier(0.01f, "M[0]", ""));
  EXPECT_NO_THROW(check_multiplier(0x1p-32f, "M[0]", ""));
  for (float bad : {0.0f, 0x1p-33f, 256.0f, INFINITY, NAN, -0.5f}) {
    try {
      check_multiplier(bad, "M[3]", "s_x = 1");
      ADD_FAILURE() << bad << " passed";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("requantization multiplier M[3]", 0), 0u) << e.what();  // the caller names the node
      EXPECT_NE(std::string(e.what()).find("outside [2^-32, 256)"), std::string::npos) << e.what();
    }
  }
  // K · 128 · 127 = 2,147,482,624 at K = 132,104: |b_q| may take the remaining 1,023.
  EXPECT_NO_THROW(check_accumulator(132104, 127, 0.0));
  EXPECT_NO_THROW(check_accumulator(132104, 127, 2147483647.0 - 132104.0 * 16256.0));
  EXPECT_THROW(check_accumulator(132104, 127, 2147483648.0 - 132104.0 * 16256.0), Error);
  EXPECT_THROW(check_accumulator(1, 127, 3e9), Error);
  // A weight of −128 (other tools' full-range int8) makes each term up to 128 · 128.
  EXPECT_THROW(check_accumulator(132104, 128, 0.0), Error);
  EXPECT_NO_THROW(check_accumulator(131071, 128, 0.0));
}

}  // namespace
}  // namespace q8
