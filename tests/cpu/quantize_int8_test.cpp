// The host's int8 quantize (the CPU QuantizeLinear, and the OpenCL plan's entry, which quantizes
// its float input on the host before the upload) against QuantizeLinear's formula written
// independently, y = clamp(nearbyint(x / s) + z, -128, 127), for every 997th finite float32 bit
// pattern, several scales and zero points, threaded and not, with AVX-512, AVX2 (under
// Q8_MAX_CPU_ISA=avx2) and neither (scalar).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <vector>

#include "engine/cpu/quantize_int8.h"

namespace q8 {
namespace {

TEST(QuantizeInt8, FormulaForEveryKindOfFloat) {
  std::vector<float> x;
  for (uint64_t bits = 0; bits <= 0xffffffffull; bits += 997) {
    const float v = std::bit_cast<float>(uint32_t(bits));
    if (std::isfinite(v)) x.push_back(v);
  }
  for (float v : {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 126.5f, 127.5f, -128.5f, -129.5f}) x.push_back(v);  // ties
  x.push_back(0.25f);  // not a multiple of 16
  std::vector<int8_t> y(x.size()), alone(x.size());
  int64_t differ = 0;
  for (const auto& [s, z] : std::vector<std::pair<float, float>>{{1.0f, 0.0f}, {0.0173f, 0.0f}, {3.0e-5f, -7.0f}, {250.0f, 12.0f}}) {
    quantize_int8(x.data(), y.data(), int64_t(x.size()), s, z);
    quantize_int8_range(x.data(), alone.data(), int64_t(x.size()), s, z);
    for (size_t i = 0; i < x.size(); ++i) {
      const float q = std::nearbyint(x[i] / s) + z;
      const auto want = int8_t(q < -128.0f ? -128.0f : q > 127.0f ? 127.0f : q);
      if ((y[i] != want || alone[i] != want) && ++differ <= 5)
        ADD_FAILURE() << "x " << x[i] << " s " << s << " z " << z << ": " << int(y[i]) << " / " << int(alone[i]) << ", formula " << int(want);
    }
  }
  EXPECT_EQ(differ, 0);
}

}  // namespace
}  // namespace q8
