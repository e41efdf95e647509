#include "engine/plan/requantize.h"

#include <limits>
#include <sstream>

#include "engine/ir/error.h"

namespace q8 {

float requant_multiplier(float s_x, float s_w, float s_y) {
  const float bias_scale = s_x * s_w;
  return bias_scale / s_y;
}

float scale_ratio(float s_in, float s_out) { return s_in / s_out; }

double quantize_bias(float b, float s_x, float s_w) {
  return round_half_even(double(b) / (double(s_x) * double(s_w)));
}

int32_t quantize_value(float v, float s) {
  const float q = round_half_even(v / s);
  return int32_t(std::clamp(q, -128.0f, 127.0f));
}

// An activation after the clamp maps [lo, hi] through itself: it is monotone, so clamping then
// applying it equals clamping to [f(lo), f(hi)].
ClampBounds fold_relu(ClampBounds b) { return {std::max(b.lo, 0), std::max(b.hi, 0)}; }

ClampBounds fold_clip(ClampBounds b, std::optional<float> min, std::optional<float> max, float s_y) {
  const int32_t lo = min ? quantize_value(*min, s_y) : -128, hi = max ? quantize_value(*max, s_y) : 127;
  const auto clip = [&](int32_t v) { return std::min(std::max(v, lo), hi); };  // ONNX: min(max(x, min), max)
  return {clip(b.lo), clip(b.hi)};
}

std::array<int8_t, 256> requant_table(float s_in, float s_out) {
  std::array<int8_t, 256> t{};
  for (int v = -128; v <= 127; ++v) {
    const float x = float(v) * s_in;  // DequantizeLinear
    t[size_t(v + 128)] = int8_t(quantize_value(x, s_out));
  }
  return t;
}

namespace {
std::string number(double v) {
  std::ostringstream s;
  s.precision(9);
  s << v;
  return s.str();
}
}  // namespace

void check_multiplier(float m, const std::string& what, const std::string& scales) {
  constexpr float kMin = 0x1p-32f, kMax = 256.0f;
  check(std::isfinite(m) && m >= kMin && m < kMax, "requantization multiplier " + what + " = " + number(m) +
                                                       " is outside [2^-32, 256): " + scales);
}

void check_accumulator(int64_t k, int max_abs_weight, double max_abs_bias_q) {
  constexpr double kLimit = double(std::numeric_limits<int32_t>::max());
  const double worst = double(k) * 128.0 * double(max_abs_weight) + max_abs_bias_q;
  check(worst <= kLimit, "int32 accumulator can overflow: K = " + std::to_string(k) + ", max |w_q| = " +
                             std::to_string(max_abs_weight) + ", max |bias_q| = " + number(max_abs_bias_q) +
                             "; keep it in FP32 with --exclude");
}

}  // namespace q8
