// The layout copies (engine/cpu/transpose.h) against index arithmetic: channels-first to
// channels-last and back for int8 and float32 (the CPU INT8 backend's), and transpose_matrices
// on every value width (1, 2, 4, 8 bytes: the layout pass's Transposes) over several matrices at
// once; sizes below, at and past the 8 × 8 and 4 × 4 blocks and the 32 × 32 tiles, one channel
// and one position included. A copy, so exact: 4-byte values are arbitrary bit patterns (NaNs
// with payloads, denormals) and must keep every bit.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "engine/cpu/transpose.h"

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

// Images of a few channels (at most four rows or columns take their own path) long enough to be
// split into several tasks, the last one short.
TEST(ChannelsLastTranspose, FewChannelsOverSeveralTasks) {
  for (int64_t channels : {2, 3, 4}) {
    const int64_t positions = 20001;
    std::vector<float> first(size_t(positions * channels)), last(first.size()), back(first.size());
    for (size_t i = 0; i < first.size(); ++i) first[i] = float(i) * 0.5f;
    transpose_matrices(first.data(), last.data(), 1, channels, positions, 4);
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t p = 0; p < positions; ++p)
        ASSERT_EQ(last[size_t(p * channels + c)], first[size_t(c * positions + p)]) << channels << " channels, position " << p;
    channels_last_to_first(last.data(), back.data(), positions, channels, 4);
    EXPECT_EQ(back, first) << channels << " channels";
  }
}

template <typename T>
void check_matrices(int64_t count, int64_t rows, int64_t cols, std::mt19937_64& rng) {
  const size_t size = size_t(rows * cols);
  std::vector<T> in(size_t(count) * size), out(in.size());
  for (T& v : in) v = T(rng());
  transpose_matrices(in.data(), out.data(), count, rows, cols, sizeof(T));
  for (int64_t m = 0; m < count; ++m)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        ASSERT_EQ(out[size_t(m) * size + size_t(c * rows + r)], in[size_t(m) * size + size_t(r * cols + c)])
            << sizeof(T) << "-byte values, " << count << " × " << rows << " × " << cols << ", matrix " << m << " (" << r << ", " << c << ")";
}

TEST(ChannelsLastTranspose, EveryWidthAndEveryMatrixOfABatch) {
  std::mt19937_64 rng(11);
  for (int64_t count : {1, 3})
    for (int64_t rows : {1, 3, 4, 5, 8, 33, 96})
      for (int64_t cols : {1, 2, 4, 7, 32, 37, 400}) {
        check_matrices<uint8_t>(count, rows, cols, rng);
        check_matrices<uint16_t>(count, rows, cols, rng);
        check_matrices<uint32_t>(count, rows, cols, rng);
        check_matrices<uint64_t>(count, rows, cols, rng);
      }
}

}  // namespace
}  // namespace q8
