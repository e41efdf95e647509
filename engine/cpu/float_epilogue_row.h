// The float epilogue of a weighted INT8 op over a run of consecutive channels (one output
// position), with AVX-512 or AVX2 (docs/quantization.md, "Activations in the epilogue"): per channel c,
// v = (float)acc[c] · s[c] + b[c] (q8_dequantized: a multiply, then an add), then g = v, or
// g = HardSwish(v) (q8_hard_swish: v / 6 + 1/2, its clamp to [0, 1] with NaN giving 1, times v),
// g = Sigmoid(v) (q8_sigmoid), g = Swish(v) (q8_swish: v · q8_sigmoid(v)) or g = GELU(v) (q8_gelu,
// erf's form; the tanh form stays scalar);
// the output is g (float32) or, with y_scale, clamp(rne(g / y_scale), −128, 127) (q8_quantized).
// The same IEEE operations in the same order as those scalar functions, so the same bits.
#pragma once

#include <cstdint>

namespace q8 {

struct FloatEpilogueRow {
  enum class Activation { None, HardSwish, Sigmoid, Swish, Gelu };
  const int32_t* acc = nullptr;
  const float* s = nullptr;
  const float* b = nullptr;
  Activation activation = Activation::None;
  float y_scale = 0.0f;  // > 0: int8 output
  void* y = nullptr;     // float32, or int8 with y_scale
};

// Writes y[0, k) for the largest k ≤ n that the CPU's vectors cover (a multiple of 8: vectors of
// 16 with AVX-512, then of 8 with AVX2; 0 without AVX2 or under Q8_MAX_CPU_ISA=scalar); returns k.
int64_t float_epilogue_row(const FloatEpilogueRow& row, int64_t n);

// The vector bodies (engine/cpu/float_epilogue_row_avx512.cpp, _avx2.cpp), for the dispatch and
// the tests: each writes its whole vectors and returns how many values they hold.
int64_t float_epilogue_row_avx512(const FloatEpilogueRow& row, int64_t n);
int64_t float_epilogue_row_avx2(const FloatEpilogueRow& row, int64_t n);

}  // namespace q8
