// Matrix transposes for layout changes (channels-first ↔ channels-last): pure copies, so every
// value keeps its bits. Bytes move in 8 × 8 blocks through SSE2 unpacks, 4-byte values in 4 × 4
// blocks, other widths one by one; 32 × 32 tiles split between the threads. A matrix of at most
// four rows or columns (a 3-channel image to channels-last and back) goes a column or a row at a
// time instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace q8 {

// out[c · rows + r] = in[r · cols + c] for each of `count` rows × cols matrices, one after
// another, of `bytes`-wide values (1, 2, 4 or 8).
void transpose_matrices(const void* in, void* out, int64_t count, int64_t rows, int64_t cols, size_t bytes);

// out[m · rows · cols + c · rows + r] = in[offsets[m] + r · stride + c] (offsets and stride in
// values): matrices read from anywhere with rows `stride` apart, written one after another (the
// Transpose op's permutations that move the input's last axis to the output's last but one).
void transpose_strided_matrices(const void* in, const std::vector<int64_t>& offsets, int64_t stride, void* out, int64_t rows, int64_t cols,
                                size_t bytes);

// One sample's y (channels-first [C, S]) from y_last ([S, C]), int8 or float32 (`bytes` 1 or 4).
void channels_last_to_first(const void* y_last, void* y, int64_t positions, int64_t channels, int bytes);
// The other way, for int8 (an input or residual read beside the accumulators).
void channels_first_to_last(const int8_t* x, int8_t* x_last, int64_t positions, int64_t channels);

}  // namespace q8
