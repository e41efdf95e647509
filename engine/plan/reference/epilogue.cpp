#include "engine/plan/reference/epilogue.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "engine/cpu/float_epilogue_row.h"
#include "engine/cpu/requantize_row.h"
#include "engine/ops/epilogue_activation.h"
#include "engine/plan/epilogue_mode.h"

namespace q8 {

namespace {

// The activation of a float epilogue as engine/cpu/float_epilogue_row.h vectorizes it: none,
// HardSwish, Sigmoid, Swish or GELU (erf's form; not the tanh form).
std::optional<FloatEpilogueRow::Activation> float_row_activation(int mode) {
  using A = FloatEpilogueRow::Activation;
  if (mode < 0 || mode == Q8_FLOAT_OUT) return A::None;
  if (mode == Q8_FLOAT_OUT_HARD_SWISH || mode == Q8_INT8_OUT_HARD_SWISH) return A::HardSwish;
  if (mode == Q8_FLOAT_OUT_SIGMOID || mode == Q8_INT8_OUT_SIGMOID) return A::Sigmoid;
  if (mode == Q8_FLOAT_OUT_SWISH || mode == Q8_INT8_OUT_SWISH) return A::Swish;
  if (mode == Q8_FLOAT_OUT_GELU || mode == Q8_INT8_OUT_GELU) return A::Gelu;
  return std::nullopt;
}

bool float_row_covers(int mode) { return float_row_activation(mode).has_value(); }

const std::string kOutput = "output";

// abi.h's residual mode as the vector epilogue names it.
ResidualSum residual_sum(int mode) {
  return mode == Q8_INT8_OUT_RESIDUAL ? ResidualSum::Plain : mode == Q8_INT8_OUT_ROUNDED_RESIDUAL ? ResidualSum::Rounded : ResidualSum::RoundedFirst;
}
}  // namespace

Epilogue::Epilogue(const Node& node)
    : bounds_{int32_t(node.attr_int("lo", -128)), int32_t(node.attr_int("hi", 127))},
      y_scale_(node.attr_float("y_scale", 0.0f)),
      residual_scale_(node.attr_float("residual_scale", 0.0f)) {
  check(bounds_.lo >= -128 && bounds_.lo <= bounds_.hi && bounds_.hi <= 127,
        "clamp bounds [" + std::to_string(bounds_.lo) + ", " + std::to_string(bounds_.hi) + "] are not inside [-128, 127]");
  mode_ = epilogue_mode(node);
  const float sum_scale = node.attr_float("sum_scale", 0.0f);
  const int64_t first = node.attr_int("residual_first", 0);
  check(sum_scale == 0.0f || (std::isfinite(sum_scale) && sum_scale > 0.0f), node.describe() + ": sum_scale must be a positive finite value");
  check(first == 0 || first == 1, node.describe() + ": residual_first must be 0 or 1");
  sum_scale_ = sum_scale;
  residual_mode_ = sum_scale == 0.0f ? Q8_INT8_OUT_RESIDUAL : first ? Q8_INT8_OUT_ROUNDED_RESIDUAL_FIRST : Q8_INT8_OUT_ROUNDED_RESIDUAL;
}

DType Epilogue::check_inputs(const std::vector<TensorDesc>& in, int64_t channels, const Dims& out, const std::string& name) const {
  check(in.size() >= 4 && in[2].dtype != DType::Undefined && in[3].dtype != DType::Undefined, name + ": needs bias and scale inputs");
  const TensorDesc& bias = in[2];
  const TensorDesc& scale = in[3];
  const bool float_out = bias.dtype == DType::Float32;
  check(float_out || bias.dtype == DType::Int32, name + ": bias must be int32 (int8 output) or float32 (float output)");
  check(numel(bias.dims) == channels && numel(scale.dims) == channels && scale.dtype == DType::Float32,
        name + ": bias and scale need " + std::to_string(channels) + " values each, they have " +
            std::to_string(numel(bias.dims)) + " and " + std::to_string(numel(scale.dims)));
  check(mode_ < 0 || float_out, name + ": an activation in the epilogue needs a float32 bias and scale");
  const bool residual = in.size() > 4 && in[4].dtype != DType::Undefined;
  check(sum_scale_ == 0.0f || residual, name + ": sum_scale needs a residual input");
  if (residual)
    check(!float_out && in[4].dtype == DType::Int8 && in[4].dims == out,
          name + ": the residual must be int8 of the output's shape " + dims_to_string(out));
  return float_out && y_scale_ == 0.0f ? DType::Float32 : DType::Int8;
}

void Epilogue::bind(const Inputs& in) {
  float_out_ = in[2]->dtype() == DType::Float32;
  bias_q_ = float_out_ ? nullptr : in[2]->data<int32_t>();
  bias_f_ = float_out_ ? in[2]->data<float>() : nullptr;
  scale_ = in[3]->data<float>();
  const Tensor* residual = optional_input(in, 4);
  residual_ = residual ? residual->data<int8_t>() : nullptr;
}

void Epilogue::store(Tensor& y, int64_t index, int64_t c, int64_t acc) const {
  put(y.raw(), index, c, acc, residual_ ? residual_ + index : nullptr);
}

void Epilogue::store_channels(void* y_row, const int32_t* acc, const int8_t* residual_row, int64_t c0, int64_t count) const {
  const int64_t i = vector_part(y_row, acc, bias_q_ ? bias_q_ + c0 : nullptr, bias_f_ ? bias_f_ + c0 : nullptr, scale_ + c0, residual_row, count);
  for (int64_t k = i; k < count; ++k) put(y_row, k, c0 + k, acc[k], residual_ ? residual_row + k : nullptr);
}

int64_t Epilogue::vector_part(void* y, const int32_t* acc, const int32_t* bias_q, const float* bias_f, const float* scale, const int8_t* residual,
                              int64_t count) const {
  if (float_out_) {
    const std::optional<FloatEpilogueRow::Activation> activation = float_row_activation(mode_);
    if (!activation) return 0;
    return float_epilogue_row({acc, scale, bias_f, *activation, y_scale_, y}, count);
  }
  const RequantizeRow row{acc, bias_q, scale, residual_ ? residual : nullptr, residual_sum(residual_mode_), residual_scale_, sum_scale_,
                          bounds_.lo, bounds_.hi, static_cast<int8_t*>(y)};
  return requantize_row(row, count);
}

void Epilogue::store_positions(void* y, const int32_t* acc, const int8_t* residual, int64_t positions, int64_t channels) const {
  constexpr int64_t kRun = 256;  // values a vector call covers at least
  const int bytes = int8_out() ? 1 : 4;
  if (channels >= kRun || (float_out_ && !float_row_covers(mode_))) {
    for (int64_t p = 0; p < positions; ++p)
      store_channels(static_cast<std::byte*>(y) + p * channels * bytes, acc + p * channels, residual ? residual + p * channels : nullptr, 0,
                     channels);
    return;
  }
  const int64_t k = kRun / channels, len = k * channels;  // k positions a call
  int32_t bias_q[kRun];
  float bias_f[kRun], scale[kRun];
  // The per-channel operands repeated k times, copied (a division a value here cost more than the
  // epilogue of a depthwise convolution's row it serves).
  for (int64_t at = 0; at < len; at += channels) {
    if (bias_q_) std::copy_n(bias_q_, channels, bias_q + at);
    if (bias_f_) std::copy_n(bias_f_, channels, bias_f + at);
    std::copy_n(scale_, channels, scale + at);
  }
  for (int64_t p = 0; p < positions; p += k) {
    const int64_t at = p * channels, n = std::min(k, positions - p) * channels;
    const int64_t done = vector_part(static_cast<std::byte*>(y) + at * bytes, acc + at, bias_q, bias_f, scale, residual_ ? residual + at : nullptr, n);
    for (int64_t i = done; i < n; ++i) put(y, at + i, (at + i) % channels, acc[at + i], residual_ ? residual + at + i : nullptr);
  }
}

void Epilogue::put(void* y, int64_t i, int64_t c, int64_t acc, const int8_t* r) const {
  if (float_out_) {
    const float v = dequantize_accumulator(checked_accumulator(acc, kOutput), scale_[c], bias_f_[c]);
    if (mode_ < 0) {
      static_cast<float*>(y)[i] = v;
      return;
    }
    const float g = q8_epilogue_activation(mode_, v);
    if (y_scale_ > 0.0f) static_cast<int8_t*>(y)[i] = int8_t(q8_quantized(g, y_scale_));
    else static_cast<float*>(y)[i] = g;
    return;
  }
  const int32_t t = checked_accumulator(acc + bias_q_[c], kOutput);
  static_cast<int8_t*>(y)[i] = r ? int8_t(q8_residual_sum(residual_mode_, t, scale_[c], *r, residual_scale_, sum_scale_, bounds_.lo, bounds_.hi))
                                 : requantize(t, scale_[c], bounds_);
}

int32_t checked_accumulator(int64_t t, const std::string& name) {
  // The message only on failure: built for every element, it cost more than the arithmetic.
  if (t < std::numeric_limits<int32_t>::min() || t > std::numeric_limits<int32_t>::max()) [[unlikely]]
    throw Error(name + ": int32 accumulator overflow (" + std::to_string(t) + ")");
  return int32_t(t);
}

}  // namespace q8
