#include "engine/plan/reference/epilogue.h"

#include <limits>

namespace q8 {

Epilogue::Epilogue(const Node& node)
    : bounds_{int32_t(node.attr_int("lo", -128)), int32_t(node.attr_int("hi", 127))},
      residual_scale_(node.attr_float("residual_scale", 0.0f)) {
  check(bounds_.lo >= -128 && bounds_.lo <= bounds_.hi && bounds_.hi <= 127,
        "clamp bounds [" + std::to_string(bounds_.lo) + ", " + std::to_string(bounds_.hi) + "] are not inside [-128, 127]");
}

void Epilogue::bind(const Inputs& in, int64_t channels, const Dims& out, const std::string& name) {
  const Tensor& bias = required_input(in, 2, name.c_str(), "bias");
  const Tensor& scale = required_input(in, 3, name.c_str(), "scale");
  const Tensor* residual = optional_input(in, 4);
  float_out_ = bias.dtype() == DType::Float32;
  check(float_out_ || bias.dtype() == DType::Int32, name + ": bias must be int32 (int8 output) or float32 (float output)");
  check(bias.numel() == channels && scale.numel() == channels && scale.dtype() == DType::Float32,
        name + ": bias and scale need " + std::to_string(channels) + " values each, they have " +
            std::to_string(bias.numel()) + " and " + std::to_string(scale.numel()));
  bias_q_ = float_out_ ? nullptr : bias.data<int32_t>();
  bias_f_ = float_out_ ? bias.data<float>() : nullptr;
  scale_ = scale.data<float>();
  residual_ = nullptr;
  if (residual) {
    check(!float_out_ && residual->dtype() == DType::Int8 && residual->dims() == out,
          name + ": the residual must be int8 of the output's shape " + dims_to_string(out));
    residual_ = residual->data<int8_t>();
  }
}

void Epilogue::store(Tensor& y, int64_t index, int64_t c, int64_t acc) const {
  if (float_out_) {
    y.data<float>()[index] = dequantize_accumulator(checked_accumulator(acc, "output"), scale_[c], bias_f_[c]);
    return;
  }
  const int32_t t = checked_accumulator(acc + bias_q_[c], "output");
  y.data<int8_t>()[index] = residual_ ? requantize_residual(t, scale_[c], residual_[index], residual_scale_, bounds_)
                                      : requantize(t, scale_[c], bounds_);
}

int32_t checked_accumulator(int64_t t, const std::string& name) {
  check(t >= std::numeric_limits<int32_t>::min() && t <= std::numeric_limits<int32_t>::max(),
        name + ": int32 accumulator overflow (" + std::to_string(t) + ")");
  return int32_t(t);
}

}  // namespace q8
