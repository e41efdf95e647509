// A transposed convolution whose kernel is its stride as the CPU INT8 backend runs it
// (engine/plan/cpu_int8/non_overlapping_transpose.h): each band's sums through each kernel row
// against an int64 loop written from ConvTranspose's definition (output (i · s_h + r, j · s_w + q)
// takes input (i, j) through tap (r, q) alone), for one output channel and many, kernels unequal
// in their axes, signed sources at −128 and 127, bands of several rows and a shorter last band;
// and the shapes it declines (windows that overlap or leave gaps, padding, groups, output padding).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "engine/cpu/threads.h"
#include "engine/plan/cpu_int8/non_overlapping_transpose.h"

namespace q8 {
namespace {

Int8ConvShape upsampling(int64_t c, int64_t m, int64_t h, int64_t w, int64_t sh, int64_t sw) {
  Int8ConvShape s;
  s.transposed = true, s.channels_in = c, s.channels_out = m;
  s.in_spatial = {h, w}, s.out_spatial = {h * sh, w * sw};
  s.kernel = {sh, sw}, s.strides = {sh, sw}, s.dilations = {1, 1}, s.pad_begin = {0, 0}, s.pad_end = {0, 0};
  return s;
}

TEST(NonOverlappingTranspose, EveryBandAndKernelRowSumsExactly) {
  struct Case {
    int64_t c, m, h, w, sh, sw;
    int threads;
  } cases[] = {{16, 1, 9, 13, 2, 2, 2}, {24, 32, 40, 70, 2, 2, 2}, {7, 17, 5, 6, 3, 2, 1}, {64, 3, 30, 17, 1, 4, 3}};
  std::mt19937 rng(7);
  const int before = compute_threads();
  for (const Case& k : cases) {
    set_compute_threads(k.threads);
    std::vector<int8_t> x(size_t(k.h * k.w * k.c)), w(size_t(k.c * k.m * k.sh * k.sw));
    for (size_t i = 0; i < x.size(); ++i) x[i] = i % 11 == 0 ? int8_t(-128) : i % 13 == 0 ? int8_t(127) : int8_t(int(rng() % 256) - 128);
    for (size_t i = 0; i < w.size(); ++i) w[i] = i % 7 == 0 ? int8_t(127) : int8_t(int(rng() % 255) - 127);
    const auto t = NonOverlappingTranspose::create(upsampling(k.c, k.m, k.h, k.w, k.sh, k.sw), w.data());
    ASSERT_NE(t, nullptr) << "c" << k.c << " m" << k.m;
    EXPECT_EQ(t->kernel_rows(), k.sh);
    int64_t covered = 0;
    std::vector<int32_t> acc(size_t(t->most_rows() * k.w * k.sw * k.m));
    for (int64_t band = 0; band < t->bands(); ++band) {
      EXPECT_EQ(t->first_row(band), covered);
      covered += t->rows(band);
      for (int64_t r = 0; r < k.sh; ++r) {
        t->run(x.data(), band, r, acc.data());
        for (int64_t i = 0; i < t->rows(band); ++i)
          for (int64_t j = 0; j < k.w; ++j)
            for (int64_t q = 0; q < k.sw; ++q)
              for (int64_t o = 0; o < k.m; ++o) {
                int64_t want = 0;
                for (int64_t ch = 0; ch < k.c; ++ch)
                  want += int64_t(x[size_t(((t->first_row(band) + i) * k.w + j) * k.c + ch)]) * w[size_t(((ch * k.m + o) * k.sh + r) * k.sw + q)];
                ASSERT_EQ(acc[size_t(((i * k.w + j) * k.sw + q) * k.m + o)], want)
                    << "c" << k.c << " m" << k.m << " band " << band << " kernel row " << r << " at " << i << "," << j << "," << q << "," << o;
              }
      }
    }
    EXPECT_EQ(covered, k.h);
  }
  set_compute_threads(before);
}

TEST(NonOverlappingTranspose, DeclinesWindowsThatOverlapOrLeaveGaps) {
  std::vector<int8_t> w(16 * 8 * 9, 1);
  EXPECT_NE(NonOverlappingTranspose::create(upsampling(16, 8, 6, 6, 2, 2), w.data()), nullptr);
  Int8ConvShape overlap = upsampling(16, 8, 6, 6, 2, 2);
  overlap.kernel = {3, 3}, overlap.out_spatial = {13, 13};
  EXPECT_EQ(NonOverlappingTranspose::create(overlap, w.data()), nullptr);
  Int8ConvShape padded = upsampling(16, 8, 6, 6, 2, 2);
  padded.pad_begin = {1, 1}, padded.pad_end = {1, 1}, padded.out_spatial = {10, 10};
  EXPECT_EQ(NonOverlappingTranspose::create(padded, w.data()), nullptr);
  Int8ConvShape output_padding = upsampling(16, 8, 6, 6, 2, 2);
  output_padding.out_spatial = {13, 12};  // a row no window reaches
  EXPECT_EQ(NonOverlappingTranspose::create(output_padding, w.data()), nullptr);
  Int8ConvShape grouped = upsampling(16, 8, 6, 6, 2, 2);
  grouped.group = 2;
  EXPECT_EQ(NonOverlappingTranspose::create(grouped, w.data()), nullptr);
  Int8ConvShape dilated = upsampling(16, 8, 6, 6, 2, 2);
  dilated.dilations = {2, 2}, dilated.out_spatial = {13, 13};
  EXPECT_EQ(NonOverlappingTranspose::create(dilated, w.data()), nullptr);
  Int8ConvShape forward = upsampling(16, 8, 6, 6, 2, 2);
  forward.transposed = false;
  EXPECT_EQ(NonOverlappingTranspose::create(forward, w.data()), nullptr);
  Int8ConvShape empty = upsampling(16, 8, 0, 6, 2, 2);
  EXPECT_EQ(NonOverlappingTranspose::create(empty, w.data()), nullptr);
}

}  // namespace
}  // namespace q8
