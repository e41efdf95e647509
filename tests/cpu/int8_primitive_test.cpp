// The CPU INT8 backend's sums (engine/cpu/int8_primitive.h) at the values that break int16
// intermediates: every source and weight at ±127 or −128, so that any pair of products summed in
// int16 saturates (4 · 127² and 2 · 128² leave it) unless the source is split as the header says;
// and random bytes over the whole range. Each against an int64 loop; ctest runs it under every
// ONEDNN_MAX_CPU_ISA setting beside the harness. And oneDNN's own requantization at the edge of the
// bound under which it is the reference's (docs/cpu.md, "oneDNN's own requantization, where it is
// the reference's"): every output against engine/plan/requantize.h's requantize.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "engine/cpu/int8_primitive.h"
#include "engine/plan/requantize.h"

namespace q8 {
namespace {

// Source and weight bytes of one pattern: "max" everything 127, "min" everything −128, "mixed"
// signs that make every product +127·127 or +128·128, "random" uniform over [−128, 127].
struct Pattern {
  const char* name;
  int8_t (*source)(std::mt19937& rng);
  int8_t (*weight)(std::mt19937& rng);
};

const Pattern kPatterns[] = {
    {"max", [](std::mt19937&) { return int8_t(127); }, [](std::mt19937&) { return int8_t(127); }},
    {"min", [](std::mt19937&) { return int8_t(-128); }, [](std::mt19937&) { return int8_t(-128); }},
    {"min source, max weights", [](std::mt19937&) { return int8_t(-128); }, [](std::mt19937&) { return int8_t(127); }},
    {"max source, min weights", [](std::mt19937&) { return int8_t(127); }, [](std::mt19937&) { return int8_t(-128); }},
    {"random", [](std::mt19937& rng) { return int8_t(rng()); }, [](std::mt19937& rng) { return int8_t(rng()); }},
};

std::vector<int8_t> bytes(int64_t n, int8_t (*f)(std::mt19937&), std::mt19937& rng) {
  std::vector<int8_t> v(static_cast<size_t>(n));
  for (int8_t& b : v) b = f(rng);
  return v;
}

TEST(Int8Primitive, MatmulSumsExactlyAtTheExtremes) {
  const int64_t rows = 5, k = 700, n = 33;  // |acc| up to 700 · 128² ≈ 1.1e7
  for (const Pattern& p : kPatterns)
    for (bool trans_b : {false, true}) {
      std::mt19937 rng(7);
      const std::vector<int8_t> x = bytes(rows * k, p.source, rng), w = bytes(k * n, p.weight, rng);
      auto mm = Int8MatmulPrimitive::create(rows, k, n, trans_b);
      ASSERT_NE(mm, nullptr);
      mm->set_weights(w.data());
      std::vector<int32_t> acc(size_t(rows * n));
      mm->run(x.data(), acc.data());
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < n; ++j) {
          int64_t want = 0;
          for (int64_t i = 0; i < k; ++i) want += int64_t(x[size_t(r * k + i)]) * w[size_t(trans_b ? j * k + i : i * n + j)];
          ASSERT_EQ(acc[size_t(r * n + j)], want) << p.name << (trans_b ? ", W transposed" : "") << ", row " << r << ", column " << j
                                                  << " (" << mm->implementation() << ", oneDNN " << onednn_isa_name() << ")";
        }
    }
}

TEST(Int8Primitive, BatchedMatmulSumsExactlyAtTheExtremes) {
  const int64_t batch = 3, m = 4, k = 300, n = 17;
  for (const Pattern& p : kPatterns) {
    std::mt19937 rng(11);
    const std::vector<int8_t> a = bytes(batch * m * k, p.source, rng), b = bytes(batch * k * n, p.weight, rng);
    auto mm = Int8BatchedMatmulPrimitive::create(batch, m, k, n);
    ASSERT_NE(mm, nullptr);
    std::vector<int32_t> acc(size_t(batch * m * n));
    mm->run(a.data(), b.data(), acc.data());
    for (int64_t q = 0; q < batch; ++q)
      for (int64_t r = 0; r < m; ++r)
        for (int64_t j = 0; j < n; ++j) {
          int64_t want = 0;
          for (int64_t i = 0; i < k; ++i) want += int64_t(a[size_t((q * m + r) * k + i)]) * b[size_t((q * k + i) * n + j)];
          ASSERT_EQ(acc[size_t((q * m + r) * n + j)], want) << p.name << ", batch " << q << ", row " << r << ", column " << j;
        }
  }
}

// A 3 × 3 convolution, padding 1, channels-last: the padded taps read zero in both halves.
TEST(Int8Primitive, ConvolutionSumsExactlyAtTheExtremes) {
  const int64_t c = 48, m = 20, h = 6, w = 7;
  const Int8ConvShape shape{false, c, m, 1, {h, w}, {h, w}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}};
  for (const Pattern& p : kPatterns) {
    std::mt19937 rng(5);
    const std::vector<int8_t> x = bytes(h * w * c, p.source, rng), wt = bytes(m * c * 9, p.weight, rng);
    auto conv = Int8ConvPrimitive::create(shape);
    ASSERT_NE(conv, nullptr);
    conv->set_weights(wt.data());
    std::vector<int32_t> acc(size_t(h * w * m));
    conv->run(x.data(), acc.data());
    for (int64_t oy = 0; oy < h; ++oy)
      for (int64_t ox = 0; ox < w; ++ox)
        for (int64_t o = 0; o < m; ++o) {
          int64_t want = 0;
          for (int64_t ky = 0; ky < 3; ++ky)
            for (int64_t kx = 0; kx < 3; ++kx) {
              const int64_t iy = oy + ky - 1, ix = ox + kx - 1;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              for (int64_t i = 0; i < c; ++i) want += int64_t(x[size_t((iy * w + ix) * c + i)]) * wt[size_t(((o * c + i) * 3 + ky) * 3 + kx)];
            }
          ASSERT_EQ(acc[size_t((oy * w + ox) * m + o)], want)
              << p.name << ", position " << oy << "," << ox << ", channel " << o << " (" << conv->implementation() << ")";
        }
  }
}

// 128 · Σ|w| + |b| at 2^24 is exact, one more is not; below VNNI never (two passes for a signed
// source). Channel c's weights lie at c · channel_stride + k · k_stride.
TEST(Int8Primitive, RequantizationIsExactUpToTwoToTheTwentyFour) {
  const int64_t k = 1032;  // 128 · 127 · 1032 = 2^24 − 1024
  std::vector<int8_t> w(size_t(2 * k), int8_t(-127));
  const int32_t at_bound[2] = {1024, -1024}, past_bound[2] = {1024, 1025};
  const bool vnni = onednn_int8_vnni();
  EXPECT_EQ(requantization_is_exact(w.data(), 2, k, k, 1, at_bound), vnni) << "oneDNN " << onednn_isa_name();
  EXPECT_EQ(requantization_is_exact(w.data(), 2, 1, k, 2, at_bound), vnni) << "channels interleaved";
  EXPECT_FALSE(requantization_is_exact(w.data(), 2, k, k, 1, past_bound));
  w[5] = 0;  // channel 0 a weight inside the bound: channel 1 is still past it
  EXPECT_FALSE(requantization_is_exact(w.data(), 2, k, k, 1, past_bound));
  w[size_t(k + 5)] = 0;
  EXPECT_EQ(requantization_is_exact(w.data(), 2, k, k, 1, past_bound), vnni);
}

// The requantizing primitives' bytes with every sum as far out as the bound allows (K = 1032,
// |w| = 127, |b| ≤ 1024: |acc + b| up to 2^24), multipliers that are powers of two (ties) and
// not, and a clamp narrower than int8's; against the reference's requantize of the int64 sums.
TEST(Int8Primitive, RequantizedOutputsAreTheReferencesAtTheBound) {
  if (!onednn_int8_vnni()) GTEST_SKIP() << "oneDNN " << onednn_isa_name() << " has no VNNI: q8 requantizes (two passes for a signed source)";
  const int64_t rows = 6, k = 1032, n = 24;
  for (const Pattern& p : kPatterns)
    for (const ClampBounds bounds : {ClampBounds{-128, 127}, ClampBounds{-3, 90}}) {
      std::mt19937 rng(13);
      const std::vector<int8_t> x = bytes(rows * k, p.source, rng);
      std::vector<int8_t> w(size_t(k * n));  // W [K, N]: column j's weights N apart; |w| = 127
      for (int8_t& v : w) v = p.weight(rng) < 0 ? int8_t(-127) : int8_t(127);
      Int8Requantization r;
      r.lo = bounds.lo, r.hi = bounds.hi;
      for (int64_t j = 0; j < n; ++j) {
        r.bias.push_back(int32_t(rng() % 2049) - 1024);
        r.scale.push_back(j % 2 ? std::ldexp(1.0f, -17 - int(j % 5)) : std::ldexp(1.0f + float(rng() % 1000) / 1000.0f, -18));
      }
      ASSERT_TRUE(requantization_is_exact(w.data(), n, 1, k, n, r.bias.data()));
      auto mm = Int8MatmulPrimitive::create(rows, k, n, false, &r);
      ASSERT_NE(mm, nullptr);
      ASSERT_TRUE(mm->requantizes());
      mm->set_weights(w.data());
      std::vector<int8_t> y(size_t(rows * n));
      mm->run_requantized(x.data(), y.data());
      // The same products as a 1 × 1 convolution over `rows` positions: W [N, K] there.
      std::vector<int8_t> w_nk(size_t(n * k));
      for (int64_t i = 0; i < k; ++i)
        for (int64_t j = 0; j < n; ++j) w_nk[size_t(j * k + i)] = w[size_t(i * n + j)];
      auto conv = Int8ConvPrimitive::create({false, k, n, 1, {rows, 1}, {rows, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}}, &r);
      ASSERT_NE(conv, nullptr);
      ASSERT_TRUE(conv->requantizes());
      conv->set_weights(w_nk.data());
      std::vector<int8_t> y_conv(size_t(rows * n));
      conv->run_requantized(x.data(), y_conv.data());
      for (int64_t row = 0; row < rows; ++row)
        for (int64_t j = 0; j < n; ++j) {
          int64_t acc = 0;
          for (int64_t i = 0; i < k; ++i) acc += int64_t(x[size_t(row * k + i)]) * w[size_t(i * n + j)];
          const int8_t want = requantize(int32_t(acc + r.bias[size_t(j)]), r.scale[size_t(j)], bounds);
          ASSERT_EQ(y[size_t(row * n + j)], want) << p.name << ", row " << row << ", column " << j << ", acc + b = " << acc + r.bias[size_t(j)]
                                                  << " (" << mm->implementation() << ", oneDNN " << onednn_isa_name() << ")";
          ASSERT_EQ(y_conv[size_t(row * n + j)], want) << p.name << ", position " << row << ", channel " << j << " (" << conv->implementation() << ")";
        }
    }
}

}  // namespace
}  // namespace q8
