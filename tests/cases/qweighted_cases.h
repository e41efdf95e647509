// The shapes of the weighted INT8 cases (QConv, QConvTranspose, QGemm) and their accumulators by
// direct index arithmetic, shared with the test that the largest really passes 2^24.
#pragma once

#include <string>
#include <vector>

#include "tests/cases/op_case.h"

namespace q8 {

struct WeightedCase {
  std::string op = "QConv";  // QConv, QConvTranspose, QGemm
  int64_t n = 1, c = 1, m = 1, group = 1;
  std::vector<int64_t> in, kernel, strides, dilations, pads, output_padding;  // spatial (QGemm: in = {rows}, kernel = {})
  bool trans_b = false, residual = false, float_out = false, ties = false, extreme = false;
  // With residual: 0 added to the accumulator (--add-mode tensorrt's form), 1 after the op's own
  // int8 rounding with the op's output the Add's first input, 2 with the residual first
  // (docs/quantization.md, "Residual Add").
  int rounded = 0;
  int32_t lo = -128, hi = 127;
  // An activation in the epilogue (docs/quantization.md, "Activations in the epilogue"): "Gelu",
  // "GeluTanh", "Swish", "HardSwish" or "Sigmoid"; float b and S, int8 out by y_scale unless float_out.
  std::string activation;
  // QConv or QConvTranspose with channels_last = 1 (the CPU's layout pass): x, the residual and y [N, H, W, C].
  bool channels_last = false;

  std::string describe() const;
};

// The QGemm cases; the last one's accumulators pass 2^24.
std::vector<WeightedCase> gemm_cases();
// The accumulators of a case's output, by direct index arithmetic; returns the output dims.
Dims direct_accumulators(const WeightedCase& k, const Tensor& x, const Tensor& w, std::vector<int64_t>& acc);

}  // namespace q8
