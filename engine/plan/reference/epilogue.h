// The epilogue of the INT8 reference's weighted ops (QConv, QConvTranspose, QGemm): what happens
// to one int32 accumulator, written once (docs/quantization.md, "Requantization").
#pragma once

#include <string>

#include "engine/ir/tensor.h"
#include "engine/ops/op.h"
#include "engine/plan/requantize.h"

namespace q8 {

// Inputs 2.. of a weighted q8 op: bias (int32 b_q → int8 output; float32 b → float32 output),
// scale float32[C] (M, or S for float output), and an optional int8 residual shaped like the
// output; attributes lo, hi and residual_scale, and with sum_scale (> 0) and residual_first the
// residual added after the op's own int8 rounding (docs/quantization.md, "Residual Add"). With an activation (float b and S; "Gelu" with its
// approximate, "Swish", "HardSwish", "Sigmoid": engine/plan/epilogue_mode.h), that function of the
// float value, and with y_scale an int8 output quantized by QuantizeLinear's arithmetic
// (docs/quantization.md, "Activations in the epilogue").
class Epilogue {
 public:
  Epilogue(const Node& node);
  // Checks the inputs' types and shapes against `channels` output channels and the output
  // shape; gives the output type (int8, or float32 for a float32 bias without y_scale).
  DType check_inputs(const std::vector<TensorDesc>& in, int64_t channels, const Dims& out, const std::string& name) const;
  // Takes the data of inputs check_inputs accepted.
  void bind(const Inputs& in);

  // Writes output element `index` of channel c from its accumulator.
  void store(Tensor& y, int64_t index, int64_t c, int64_t acc) const;
  // Writes `count` outputs of consecutive channels c0… (one position, channels-last) from their
  // int32 accumulators: y_row int8 or float32, the output type; residual_row laid out like y_row
  // (ignored without a residual input). The bytes store gives; int8 outputs vectorized
  // (engine/cpu/requantize_row.h).
  void store_channels(void* y_row, const int32_t* acc, const int8_t* residual_row, int64_t c0, int64_t count) const;
  // Writes `positions` whole positions of `channels` channels each (channels-last rows, as
  // store_channels one after another). With few channels the int8 case covers several positions a
  // vector call (bias and multipliers repeated), so a 16-channel layer is not a call per position.
  void store_positions(void* y, const int32_t* acc, const int8_t* residual, int64_t positions, int64_t channels) const;
  bool int8_out() const { return !float_out_ || y_scale_ > 0.0f; }
  bool has_residual() const { return residual_ != nullptr; }
  // Once bound: whether the epilogue is y = clamp(rne((float)(acc + b_q) · M), lo, hi) alone (int8
  // out, no residual, no activation), which oneDNN can compute itself (docs/cpu.md, "oneDNN's own
  // requantization, where it is the reference's"); then its b_q, M and bounds.
  bool plain_requantization() const { return mode_ < 0 && !float_out_ && y_scale_ == 0.0f && !residual_ && bias_q_ && scale_; }
  // Once bound: whether the epilogue is a rounded residual sum (docs/quantization.md, "Residual
  // Add"): the op's own y = clamp(rne((float)(acc + b_q) · M), −128, 127), then z from y and the
  // residual r, clamp(rne(fma(y, A, r · R)), lo, hi) or with the residual first
  // clamp(rne(fma(r, R, y · A)), lo, hi); A = sum_scale(), R = residual_scale().
  bool rounded_residual() const { return mode_ < 0 && !float_out_ && y_scale_ == 0.0f && residual_ && sum_scale_ > 0.0f && bias_q_ && scale_; }
  bool residual_first() const { return residual_mode_ == Q8_INT8_OUT_ROUNDED_RESIDUAL_FIRST; }
  float sum_scale() const { return sum_scale_; }
  float residual_scale() const { return residual_scale_; }
  const int32_t* bias_q() const { return bias_q_; }
  const float* scale() const { return scale_; }
  ClampBounds bounds() const { return bounds_; }
  // The residual input bound (nullptr without one).
  const int8_t* residual() const { return residual_; }

 private:
  // Output i of y (int8 or float32) for channel c, its accumulator and its residual (or nullptr).
  void put(void* y, int64_t i, int64_t c, int64_t acc, const int8_t* r) const;
  // The first k of `count` outputs that the CPU's vectors cover (engine/cpu/requantize_row.h,
  // float_epilogue_row.h), written from per-output bias (b_q or b) and scale; returns k.
  int64_t vector_part(void* y, const int32_t* acc, const int32_t* bias_q, const float* bias_f, const float* scale, const int8_t* residual,
                      int64_t count) const;

  ClampBounds bounds_;
  int mode_ = -1;  // the activation's epilogue mode (kernels/abi.h), or -1
  float y_scale_ = 0.0f;  // > 0: int8 output after the float epilogue
  float residual_scale_ = 0.0f;
  float sum_scale_ = 0.0f;
  int residual_mode_ = 0;  // kernels/abi.h's mode with a residual: Q8_INT8_OUT_RESIDUAL or a rounded one
  bool float_out_ = false;
  const int32_t* bias_q_ = nullptr;
  const float* bias_f_ = nullptr;
  const float* scale_ = nullptr;
  const int8_t* residual_ = nullptr;
};

// t as int32. It never overflows after the plan builder's guard; the
// reference checks anyway, so a broken plan gives an Error instead of undefined behaviour.
int32_t checked_accumulator(int64_t t, const std::string& name);

}  // namespace q8
