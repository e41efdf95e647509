// The activations a weighted op's epilogue applies in float (docs/quantization.md, "Activations in
// the epilogue"), the same bits on the host and on every OpenCL device: the INT8 reference's
// epilogue (engine/plan/reference/epilogue.cpp, through engine/ops/epilogue_activation.h) and
// epilogue.cl call q8_epilogue_activation. The FP32 ops compute the same functions
// (engine/ops/sigmoid.cpp calls q8_sigmoid, hard_swish.cpp q8_hard_swish). Written in the subset of
// C++ and OpenCL C both compile; needs abi.h, exp.cl and gelu.cl first.

// x · max(0, min(1, x / 6 + 1/2)), as std::max(0, std::min(1, t)): NaN in t gives 1 (std::min's
// first argument wins a comparison with NaN), then x · 1. A NaN x goes through as x + x (quiet,
// its own sign and payload, as q8_sigmoid), whatever a compiler makes of x · 1 (it may write x,
// leaving a signalling NaN as it came, in one build and not another).
inline float q8_hard_swish(float x) {
  if (x != x) return x + x;
  const float t = x / 6.0f + 0.5f;
  const float lo = t != t ? 1.0f : (t < 1.0f ? t : 1.0f);
  return x * (0.0f < lo ? lo : 0.0f);
}

inline float q8_swish(float x) { return x * q8_sigmoid(x); }

// Whether an epilogue mode of abi.h ends in QuantizeLinear's int8 after its activation.
inline int q8_int8_after_activation(int mode) {
  return mode == Q8_INT8_OUT_GELU || mode == Q8_INT8_OUT_GELU_TANH || mode == Q8_INT8_OUT_SWISH || mode == Q8_INT8_OUT_HARD_SWISH ||
         mode == Q8_INT8_OUT_SIGMOID;
}

// f(v) of a float-epilogue mode (every mode from Q8_FLOAT_OUT_GELU on); v itself for Q8_FLOAT_OUT.
inline float q8_epilogue_activation(int mode, float v) {
  if (mode == Q8_FLOAT_OUT_GELU || mode == Q8_INT8_OUT_GELU) return q8_gelu(v);
  if (mode == Q8_FLOAT_OUT_GELU_TANH || mode == Q8_INT8_OUT_GELU_TANH) return q8_gelu_tanh(v);
  if (mode == Q8_FLOAT_OUT_SWISH || mode == Q8_INT8_OUT_SWISH) return q8_swish(v);
  if (mode == Q8_FLOAT_OUT_HARD_SWISH || mode == Q8_INT8_OUT_HARD_SWISH) return q8_hard_swish(v);
  if (mode == Q8_FLOAT_OUT_SIGMOID || mode == Q8_INT8_OUT_SIGMOID) return q8_sigmoid(v);
  return v;
}
