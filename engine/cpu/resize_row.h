// One output row of a linear Resize over the last two axes with both axes resized, 16 columns at a
// time with AVX-512 (engine/cpu/resize_row_avx512.cpp): per column the four corners
// (h0,w0), (h1,w0), (h0,w1), (h1,w1) with weights wh · ww, each corner whose weight is 0 skipped,
// the sum started at +0 and added in that order, a product then a sum (no fma): the scalar loop
// of engine/ops/resize_common.cpp, whose bits these are (docs/ops.md, "Resize").
#pragma once

#include <cstdint>

namespace q8 {

struct LinearResizeRow {
  const float* row0 = nullptr;  // input rows h0 and h1
  const float* row1 = nullptr;
  float wh0 = 0.0f, wh1 = 0.0f;
  const int32_t* c0 = nullptr;  // per output column: its two input columns and their weights
  const int32_t* c1 = nullptr;
  const float* w0 = nullptr;
  const float* w1 = nullptr;
  float* dst = nullptr;
};

// Writes dst[0, n) and returns n with AVX-512 (Q8_MAX_CPU_ISA=avx512, the default where the CPU
// has it); else writes nothing and returns 0, and the caller's scalar loop does the row.
int64_t linear_resize_row(const LinearResizeRow& row, int64_t n);
int64_t linear_resize_row_avx512(const LinearResizeRow& row, int64_t n);

}  // namespace q8
