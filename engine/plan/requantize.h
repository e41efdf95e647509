// Requantization, exactly as docs/quantization.md ("Requantization") defines it. The inline
// functions are the per-element epilogue every backend computes bit for bit; the others run once,
// on the host, when a plan is built, and their results are stored in the plan as bits.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "engine/ir/rounding.h"
#include "kernels/abi.h"

namespace q8 {

// The integer clamp of a requantized output, with Relu or Clip folded in.
struct ClampBounds {
  int32_t lo = -128, hi = 127;
};

// The per-element arithmetic, one text with the OpenCL kernels (q8_requantized, q8_requantized_sum,
// q8_dequantized).
#include "kernels/requantize.cl"

// y_q = clamp(rne((float)t · m), lo, hi): one IEEE multiply, no FMA.
inline int8_t requantize(int32_t t, float m, ClampBounds b) { return int8_t(q8_requantized(t, m, b.lo, b.hi)); }

// A residual add in the epilogue: z_q = clamp(rne(fma((float)t, m, (float)r · r_scale)), lo, hi).
inline int8_t requantize_residual(int32_t t, float m, int8_t r, float r_scale, ClampBounds b) {
  return int8_t(q8_requantized_sum(t, m, r, r_scale, b.lo, b.hi));
}

// A standalone INT8 Add: z_q = clamp(rne(fma((float)a, a_scale, (float)b · b_scale)), lo, hi).
inline int8_t requantize_add(int8_t a, float a_scale, int8_t b, float b_scale, ClampBounds bounds) {
  return int8_t(q8_requantized_sum(a, a_scale, b, b_scale, bounds.lo, bounds.hi));
}

// INT8 in, FP32 out: y = (float)acc · s + bias, a multiply then an add, two roundings.
inline float dequantize_accumulator(int32_t acc, float s, float bias) { return q8_dequantized(acc, s, bias); }

// ---- Host side: computed once per plan -------------------------------------------------------

// M = (float)((float)(s_x · s_w) / s_y), as ONNX Runtime's QLinearConv computes its output scale.
float requant_multiplier(float s_x, float s_w, float s_y);
// R, A, B = (float)(s_in / s_out).
float scale_ratio(float s_in, float s_out);
// b_q = rne((double)b / ((double)s_x · (double)s_w)), in double; not yet range-checked.
double quantize_bias(float b, float s_x, float s_w);
// q(v) = rne(v / s) saturated to int8, QuantizeLinear's arithmetic.
int32_t quantize_value(float v, float s);
// Bounds b followed by Relu (f = max(·, 0)) or Clip(a, b) (f = min(max(·, q(a)), q(b)), an absent
// bound leaving −128 or 127): [f(b.lo), f(b.hi)].
ClampBounds fold_relu(ClampBounds b);
ClampBounds fold_clip(ClampBounds b, std::optional<float> min, std::optional<float> max, float s_y);
// Concat input with scale s_in into an output with scale s_out: T[v + 128] = Q_out(DQ_in(v)).
std::array<int8_t, 256> requant_table(float s_in, float s_out);

// Build-time guards; each throws Error with the message docs/quantization.md gives (the lowering
// adds the node). `what` names the multiplier ("M[3]", "R"); `scales` the scales it came from.
void check_multiplier(float m, const std::string& what, const std::string& scales);
// K · 128 · max |w_q| + max |b_q| ≤ 2^31 − 1 (max |w_q| is 127 for q8's narrow-range weights, and
// may be 128 in other tools' QDQ models).
void check_accumulator(int64_t k, int max_abs_weight, double max_abs_bias_q);

}  // namespace q8
