// The CPU INT8 backend's sums (engine/cpu/int8_primitive.h) at the values that break int16
// intermediates: every source and weight at ±127 or −128, so that any pair of products summed in
// int16 saturates (4 · 127² and 2 · 128² leave it) unless the source is split as the header says;
// and random bytes over the whole range. Each against an int64 loop; ctest runs it under every
// ONEDNN_MAX_CPU_ISA setting beside the harness.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "engine/cpu/int8_primitive.h"

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

}  // namespace
}  // namespace q8
