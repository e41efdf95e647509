// The CPU INT8 backend's layout copies (engine/cpu/int8_primitive.h) against index arithmetic:
// channels-first to channels-last and back for int8 and float32, sizes below, at and past the
// 8 × 8 blocks and 32 × 32 tiles, one channel and one position included. A copy, so exact.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "engine/cpu/int8_primitive.h"

namespace q8 {
namespace {

TEST(ChannelsLastTranspose, EveryValueLandsWhereTheIndexSays) {
  std::mt19937 rng(3);
  for (int64_t positions : {1, 7, 8, 9, 31, 32, 33, 64, 100, 3136})
    for (int64_t channels : {1, 3, 8, 16, 17, 64, 250}) {
      std::vector<int8_t> first(size_t(positions * channels)), last(first.size()), back(first.size());
      for (int8_t& v : first) v = int8_t(rng());
      channels_first_to_last(first.data(), last.data(), positions, channels);
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t p = 0; p < positions; ++p)
          ASSERT_EQ(last[size_t(p * channels + c)], first[size_t(c * positions + p)]) << positions << " x " << channels;
      channels_last_to_first(last.data(), back.data(), positions, channels, 1);
      EXPECT_EQ(back, first) << positions << " positions, " << channels << " channels";
      std::vector<float> f_last(first.size()), f_first(first.size());
      for (size_t i = 0; i < f_last.size(); ++i) f_last[i] = float(i) + 0.25f;
      channels_last_to_first(f_last.data(), f_first.data(), positions, channels, 4);
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t p = 0; p < positions; ++p) ASSERT_EQ(f_first[size_t(c * positions + p)], f_last[size_t(p * channels + c)]);
    }
}

}  // namespace
}  // namespace q8
