// q8's depthwise INT8 kernel (engine/cpu/depthwise_int8.h) against an int64 loop written from the
// convolution's definition (docs/cpu.md, "Depthwise convolution: q8's own kernel on VNNI"): every
// kernel size it takes (1 × 1 to 8 × 8, quads of rows partly filled), strides, dilations and
// padding on every side, channel counts around its 16- and 64-channel vectors, sources and
// weights at ±127 and −128 (where a shifted u8 source meets the compensation) and random; and its
// requantization in registers against engine/plan/requantize.h's requantize of those sums.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "engine/cpu/depthwise_int8.h"
#include "engine/plan/requantize.h"

namespace q8 {
namespace {

struct Case {
  int64_t c, h, w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
};

int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t d, int64_t p0, int64_t p1) { return (in + p0 + p1 - (k - 1) * d - 1) / s + 1; }

Int8ConvShape shape_of(const Case& k) {
  Int8ConvShape s;
  s.channels_in = s.channels_out = s.group = k.c;
  s.in_spatial = {k.h, k.w};
  s.out_spatial = {out_size(k.h, k.kh, k.sh, k.dh, k.pt, k.pb), out_size(k.w, k.kw, k.sw, k.dw, k.pl, k.pr)};
  s.kernel = {k.kh, k.kw}, s.strides = {k.sh, k.sw}, s.dilations = {k.dh, k.dw};
  s.pad_begin = {k.pt, k.pl}, s.pad_end = {k.pb, k.pr};
  return s;
}

// x [H, W, C], w [C, 1, k_h, k_w]: Σ over the window inside the input of x · w.
int64_t expected(const Case& k, const std::vector<int8_t>& x, const std::vector<int8_t>& w, int64_t oy, int64_t ox, int64_t ch) {
  int64_t sum = 0;
  for (int64_t r = 0; r < k.kh; ++r)
    for (int64_t q = 0; q < k.kw; ++q) {
      const int64_t iy = oy * k.sh - k.pt + r * k.dh, ix = ox * k.sw - k.pl + q * k.dw;
      if (iy < 0 || iy >= k.h || ix < 0 || ix >= k.w) continue;
      sum += int64_t(x[size_t((iy * k.w + ix) * k.c + ch)]) * w[size_t((ch * k.kh + r) * k.kw + q)];
    }
  return sum;
}

bool cpu_runs_it() {
  __builtin_cpu_init();
  const char* cap = std::getenv("Q8_MAX_CPU_ISA");
  return (!cap || std::string(cap) == "avx512") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni") &&
         __builtin_cpu_supports("avx512vbmi");
}

void check(const Case& k, int pattern, uint32_t seed) {
  std::mt19937 rng(seed);
  const auto byte = [&](bool source) -> int8_t {
    switch (pattern) {
      case 0: return 127;
      case 1: return -128;
      case 2: return source ? int8_t(-128) : int8_t(127);
      default: return int8_t(rng());
    }
  };
  std::vector<int8_t> x(size_t(k.h * k.w * k.c)), w(size_t(k.c * k.kh * k.kw));
  for (int8_t& v : x) v = byte(true);
  for (int8_t& v : w) v = byte(false);
  const Int8ConvShape s = shape_of(k);
  auto conv = DepthwiseInt8Conv::create(s, w.data());
  ASSERT_NE(conv, nullptr);
  const int64_t oh = s.out_spatial[0], ow = s.out_spatial[1];
  ASSERT_EQ(conv->out_rows(), oh);
  ASSERT_EQ(conv->out_cols(), ow);
  std::vector<int32_t> acc(size_t(ow * k.c + 16), 0x5a5a5a5a);
  for (int64_t oy = 0; oy < oh; ++oy) {
    conv->run_row(x.data(), oy, acc.data());
    for (int64_t ox = 0; ox < ow; ++ox)
      for (int64_t ch = 0; ch < k.c; ++ch)
        ASSERT_EQ(acc[size_t(ox * k.c + ch)], expected(k, x, w, oy, ox, ch))
            << "c " << k.c << " in " << k.h << "x" << k.w << " kernel " << k.kh << "x" << k.kw << " stride " << k.sh << "," << k.sw << " dilation "
            << k.dh << "," << k.dw << " pads " << k.pt << "," << k.pl << "," << k.pb << "," << k.pr << " pattern " << pattern << ": row " << oy
            << ", column " << ox << ", channel " << ch;
    for (size_t i = size_t(ow * k.c); i < acc.size(); ++i) ASSERT_EQ(acc[i], 0x5a5a5a5a) << "written past the row's " << ow * k.c << " sums";
  }
}

TEST(DepthwiseInt8, SumsExactlyForEveryKernelStrideAndPadding) {
  if (!cpu_runs_it()) GTEST_SKIP() << "no AVX-512 VNNI with BW and VBMI here (or Q8_MAX_CPU_ISA caps it): oneDNN's kernel serves";
  const Case cases[] = {
      {32, 9, 11, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},   {16, 7, 7, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},   {144, 6, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
      {70, 8, 9, 3, 3, 2, 1, 1, 1, 0, 1, 1, 0},    {5, 6, 13, 5, 5, 1, 2, 1, 1, 2, 2, 2, 2},   {24, 12, 12, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2},
      {40, 9, 10, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3},   {3, 11, 9, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},   {48, 10, 10, 3, 3, 1, 1, 3, 2, 3, 2, 0, 1},
      {17, 5, 8, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},    {65, 4, 4, 1, 3, 1, 1, 1, 1, 0, 1, 0, 1},   {33, 9, 6, 4, 2, 1, 1, 1, 1, 1, 0, 2, 1},
      {8, 12, 12, 8, 8, 1, 1, 1, 1, 3, 4, 4, 3},   {129, 5, 7, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1}, {960, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
      {12, 3, 30, 3, 3, 1, 3, 1, 1, 0, 2, 0, 2},   {20, 6, 6, 6, 1, 1, 1, 1, 1, 2, 0, 3, 0},
  };
  uint32_t seed = 1;
  for (const Case& k : cases)
    for (int pattern = 0; pattern < 4; ++pattern) check(k, pattern, seed++);
}

TEST(DepthwiseInt8, DeclinesWhatItDoesNotRun) {
  Case k{16, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1};
  std::vector<int8_t> w(16 * 81, 1);
  Int8ConvShape grouped = shape_of(k);
  grouped.group = 8;  // two channels a group
  EXPECT_EQ(DepthwiseInt8Conv::create(grouped, w.data()), nullptr);
  Int8ConvShape multiplier = shape_of(k);
  multiplier.channels_out = 32;  // two outputs a channel
  EXPECT_EQ(DepthwiseInt8Conv::create(multiplier, w.data()), nullptr);
  k.kh = k.kw = 9, k.pt = k.pl = k.pb = k.pr = 4;
  EXPECT_EQ(DepthwiseInt8Conv::create(shape_of(k), w.data()), nullptr);  // past 8 × 8
  Int8ConvShape empty = shape_of(Case{16, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1});
  empty.in_spatial[1] = 0, empty.out_spatial[1] = 0;  // an empty input: nothing to run
  EXPECT_EQ(DepthwiseInt8Conv::create(empty, w.data()), nullptr);
  Int8ConvShape transposed = shape_of(Case{16, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1});
  transposed.transposed = true;
  EXPECT_EQ(DepthwiseInt8Conv::create(transposed, w.data()), nullptr);
}

// The kernel's own requantization (docs/cpu.md, "Requantized in the kernel"): biases that put
// acc + b at int32's edge (128 · Σ |w| + |b| = 2^31 − 1, where float(t) rounds far past 2^24),
// small ones, power-of-two multipliers (ties) and others, int8's range and a narrow clamp; every
// byte against requantize(acc + b) from the int64 sums. One past the bound it keeps the int32 sums.
TEST(DepthwiseInt8, RequantizesAsTheReferenceUpToInt32sEdge) {
  if (!cpu_runs_it()) GTEST_SKIP() << "no AVX-512 VNNI with BW and VBMI here (or Q8_MAX_CPU_ISA caps it): oneDNN's kernel serves";
  const Case cases[] = {{70, 9, 11, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, {24, 12, 12, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2}, {17, 8, 9, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3}};
  uint32_t seed = 100;
  for (const Case& k : cases)
    for (int pattern = 0; pattern < 4; ++pattern)
      for (const ClampBounds bounds : {ClampBounds{-128, 127}, ClampBounds{0, 90}}) {
        std::mt19937 rng(seed++);
        std::vector<int8_t> x(size_t(k.h * k.w * k.c)), w(size_t(k.c * k.kh * k.kw));
        for (int8_t& v : x) v = pattern == 0 ? int8_t(127) : pattern == 1 ? int8_t(-128) : int8_t(rng());
        for (int8_t& v : w) v = pattern < 2 ? int8_t(rng() % 2 ? 127 : -127) : int8_t(rng());
        Int8Requantization r;
        r.lo = bounds.lo, r.hi = bounds.hi;
        const int64_t taps = k.kh * k.kw;
        for (int64_t ch = 0; ch < k.c; ++ch) {
          int64_t magnitude = 0;
          for (int64_t t = 0; t < taps; ++t) magnitude += std::abs(int64_t(w[size_t(ch * taps + t)]));
          const int64_t edge = int64_t(INT32_MAX) - 128 * magnitude;
          const int64_t b = ch % 3 == 0 ? edge : ch % 3 == 1 ? -edge : int64_t(rng() % 20001) - 10000;
          r.bias.push_back(int32_t(b));
          const float big = ch % 3 == 2 ? 1.0f : std::ldexp(1.0f, -24);  // y near ±127 at acc + b near ±2^31
          r.scale.push_back(ch % 2 ? big * std::ldexp(1.0f, -int(ch % 7)) : big * (1.0f + float(rng() % 1000) / 1000.0f) / 64.0f);
        }
        const Int8ConvShape s = shape_of(k);
        auto conv = DepthwiseInt8Conv::create(s, w.data(), &r);
        ASSERT_NE(conv, nullptr);
        ASSERT_TRUE(conv->requantizes());
        const int64_t oh = s.out_spatial[0], ow = s.out_spatial[1];
        std::vector<int8_t> y(size_t(ow * k.c + 16), 0x5a);
        for (int64_t oy = 0; oy < oh; ++oy) {
          conv->run_row_requantized(x.data(), oy, y.data());
          for (int64_t ox = 0; ox < ow; ++ox)
            for (int64_t ch = 0; ch < k.c; ++ch) {
              const int64_t t = expected(k, x, w, oy, ox, ch) + r.bias[size_t(ch)];
              ASSERT_LE(std::abs(t), int64_t(INT32_MAX));
              ASSERT_EQ(y[size_t(ox * k.c + ch)], requantize(int32_t(t), r.scale[size_t(ch)], bounds))
                  << "c " << k.c << " kernel " << k.kh << "x" << k.kw << " pattern " << pattern << " bounds [" << bounds.lo << ", "
                  << bounds.hi << "]: row " << oy << ", column " << ox << ", channel " << ch << ", acc + b = " << t;
            }
          for (size_t i = size_t(ow * k.c); i < y.size(); ++i) ASSERT_EQ(y[i], 0x5a) << "written past the row's " << ow * k.c << " bytes";
        }
        // One past the bound in one channel: the sums stay int32, for the epilogue to report.
        Int8Requantization past = r;
        past.bias[0] = past.bias[0] > 0 ? past.bias[0] + 1 : past.bias[0] - 1;
        if (std::abs(int64_t(r.bias[0])) < int64_t(INT32_MAX)) {
          auto declined = DepthwiseInt8Conv::create(s, w.data(), &past);
          ASSERT_NE(declined, nullptr);
          EXPECT_FALSE(declined->requantizes());
        }
      }
}

}  // namespace
}  // namespace q8
