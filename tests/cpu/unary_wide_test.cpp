// The AVX-512 and AVX2 Exp, Sigmoid, HardSwish, Erf and GELU against the scalar functions they vectorize: the same bits for
// every 997th float32 bit pattern (both signs, subnormals, NaN payloads, ±Inf) and the edges of the
// scalar function's branches, in runs whose length is not a multiple of 16 or 8.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/cpu/unary_wide.h"
#include "engine/ops/epilogue_activation.h"
#include "engine/cpu/gemm.h"
#include "engine/ops/exp_float.h"
#include "engine/ops/plane_sum.h"
#include "tests/ops/op_harness.h"

namespace q8 {
namespace {

std::vector<float> inputs() {
  std::vector<float> x;
  for (uint64_t bits = 0; bits <= 0xffffffffull; bits += 997) x.push_back(std::bit_cast<float>(uint32_t(bits)));
  for (float edge : {88.72283935546875f, -103.97208404541015625f, 0.0f, 1.0f, -1.0f, 87.0f, -87.0f, -88.0f, -100.0f, 2.0f,
                     4.0f, 1.4142135f, 2.828427f, 5.656854f}) {
    float up = edge, down = edge;
    for (int i = 0; i < 40; ++i) {
      x.push_back(up), x.push_back(-up), x.push_back(down);
      up = std::nextafter(up, INFINITY), down = std::nextafter(down, -INFINITY);
    }
  }
  for (float s : {INFINITY, -INFINITY, NAN, -NAN, std::bit_cast<float>(0x7f800001u), std::bit_cast<float>(0xffc00123u),
                  std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(), FLT_MAX, -FLT_MAX})
    x.push_back(s);
  x.push_back(0.5f);  // an odd count: the scalar tail runs too
  return x;
}

template <typename Wide, typename Scalar>
void expect_same_bits(Wide wide, int64_t width, Scalar scalar, const char* name) {
  const std::vector<float> x = inputs();
  std::vector<float> y(x.size());
  const int64_t n = int64_t(x.size());
  const int64_t done = wide(x.data(), y.data(), n);
  EXPECT_EQ(done, n - n % width);
  int64_t differ = 0;
  for (int64_t i = 0; i < done; ++i) {
    const uint32_t want = std::bit_cast<uint32_t>(scalar(x[size_t(i)])), got = std::bit_cast<uint32_t>(y[size_t(i)]);
    if (want != got && ++differ <= 5)
      ADD_FAILURE() << name << "(" << x[size_t(i)] << " = 0x" << std::hex << std::bit_cast<uint32_t>(x[size_t(i)]) << "): 0x" << got
                    << ", scalar 0x" << want << std::dec;
  }
  EXPECT_EQ(differ, 0) << name << ": values that differ from the scalar function, of " << done;
}

bool has_avx512() { return gemm_isa() == "avx512"; }
bool has_avx2() { return gemm_isa() == "avx512" || gemm_isa() == "avx2"; }  // AVX-512 machines have AVX2 and FMA

TEST(UnaryWide, Avx512SameBitsAsTheScalarExp) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 here (or Q8_MAX_CPU_ISA caps it)";
  expect_same_bits(exp_avx512, 16, [](float v) { return q8_exp(v); }, "exp");
}

TEST(UnaryWide, Avx512SameBitsAsTheScalarSigmoid) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 here (or Q8_MAX_CPU_ISA caps it)";
  expect_same_bits(sigmoid_avx512, 16, [](float v) { return q8_sigmoid(v); }, "sigmoid");
}

TEST(UnaryWide, Avx512SameBitsAsTheScalarErf) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 here (or Q8_MAX_CPU_ISA caps it)";
  expect_same_bits(erf_avx512, 16, [](float v) { return q8_erf(v); }, "erf");
}

TEST(UnaryWide, Avx512SameBitsAsTheScalarGelu) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 here (or Q8_MAX_CPU_ISA caps it)";
  expect_same_bits(gelu_avx512, 16, [](float v) { return q8_gelu(v); }, "gelu");
}

TEST(UnaryWide, Avx2SameBitsAsTheScalarExp) {
  if (!has_avx2()) GTEST_SKIP() << "no AVX2 with FMA here (or Q8_MAX_CPU_ISA caps it)";
  expect_same_bits(exp_avx2, 8, [](float v) { return q8_exp(v); }, "exp");
}

TEST(UnaryWide, Avx2SameBitsAsTheScalarSigmoid) {
  if (!has_avx2()) GTEST_SKIP() << "no AVX2 with FMA here (or Q8_MAX_CPU_ISA caps it)";
  expect_same_bits(sigmoid_avx2, 8, [](float v) { return q8_sigmoid(v); }, "sigmoid");
}

TEST(UnaryWide, Avx2SameBitsAsTheScalarHardSwish) {
  if (!has_avx2()) GTEST_SKIP() << "no AVX2 with FMA here (or Q8_MAX_CPU_ISA caps it)";
  expect_same_bits(hard_swish_avx2, 8, [](float v) { return q8_hard_swish(v); }, "hard_swish");
}

TEST(UnaryWide, Avx2SameBitsAsTheScalarErf) {
  if (!has_avx2()) GTEST_SKIP() << "no AVX2 with FMA here (or Q8_MAX_CPU_ISA caps it)";
  expect_same_bits(erf_avx2, 8, [](float v) { return q8_erf(v); }, "erf");
}

TEST(UnaryWide, Avx2SameBitsAsTheScalarGelu) {
  if (!has_avx2()) GTEST_SKIP() << "no AVX2 with FMA here (or Q8_MAX_CPU_ISA caps it)";
  expect_same_bits(gelu_avx2, 8, [](float v) { return q8_gelu(v); }, "gelu");
}

// What the ops take under each Q8_MAX_CPU_ISA setting: the widest form the setting allows.
TEST(UnaryWide, OpsTakeTheWidestFormAllowed) {
  const UnaryArrayFn got = wide_or_null(exp_avx512, exp_avx2);
  EXPECT_EQ(got, has_avx512() ? exp_avx512 : has_avx2() ? exp_avx2 : nullptr) << "gemm_isa " << gemm_isa();
  // HardSwish has no AVX-512 form: AVX2's wherever AVX2 is allowed.
  EXPECT_EQ(wide_or_null(nullptr, hard_swish_avx2), has_avx2() ? hard_swish_avx2 : nullptr) << "gemm_isa " << gemm_isa();
}

// Softmax over contiguous rows takes the widest exp: its rows (203 long, a partial last vector; values
// spread over e^-30 … 1 of the row's max, and a row with -Inf and a huge value) are the scalar formula's
// bit for bit: exp(x - max) by q8_exp, the sum by lane_sum, then one reciprocal times each.
TEST(UnaryWide, SoftmaxRowsAreTheScalarFormula) {
  Tensor x = random_tensor({3, 203}, 31, -30.0f, 0.0f);
  x.data<float>()[2 * 203 + 5] = -INFINITY;
  x.data<float>()[2 * 203 + 7] = 1e30f;
  x.data<float>()[1 * 203 + 10] = -0.0f;  // the row's largest value is a zero of either sign
  x.data<float>()[1 * 203 + 190] = 0.0f;
  Node softmax;
  softmax.op_type = "Softmax";
  const Tensor y = run_op(softmax, {&x}, 13)[0];
  for (int64_t r = 0; r < 3; ++r) {
    const float* row = x.data<float>() + r * 203;
    float max = -INFINITY;
    for (int64_t j = 0; j < 203; ++j) max = std::max(max, row[j]);
    std::vector<float> e(203);
    for (int64_t j = 0; j < 203; ++j) e[size_t(j)] = q8_exp(row[j] - max);
    const float scale = float(1.0 / lane_sum(203, [&](int64_t j) { return double(e[size_t(j)]); }));
    for (int64_t j = 0; j < 203; ++j)
      ASSERT_EQ(std::bit_cast<uint32_t>(y.data<float>()[r * 203 + j]), std::bit_cast<uint32_t>(e[size_t(j)] * scale))
          << "row " << r << " value " << j << " (gemm_isa " << gemm_isa() << ")";
  }
}

}  // namespace
}  // namespace q8
