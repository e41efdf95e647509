// The float32 activations that stay FP32 in a plan, as engine/ops/*.cpp compute them, with the
// same comparisons in the same order (so NaN goes where the host sends it) and no contraction
// (requantize.cl's pragma). HardSwish and Sigmoid divide: IEEE-exact only in a program built with
// -cl-fp32-correctly-rounded-divide-sqrt (engine/opencl/select.h). Exp and Sigmoid call q8_exp
// (exp.cl), the host's own e^x. Sqrt is correctly rounded as the host's; Tanh, Erf and Gelu call
// the device's tanh and erf, within the bound docs/opencl.md states of the host's. Reciprocal divides
// (IEEE-exact as HardSwish's division); Neg and Abs only change the sign bit.
// The op codes are abi.h's.

__kernel void activation(__global const float* x, __global float* y, long count, int op, float a, float b) {
  const long i = get_global_id(0);
  if (i >= count) return;
  const float v = x[i];
  float r;
  if (op == Q8_RELU) {
    r = v > 0.0f ? v : 0.0f;
  } else if (op == Q8_CLIP) {  // a = min, b = max
    const float upper = v > b ? b : v;
    r = v < a ? a : upper;
  } else if (op == Q8_LEAKY_RELU) {  // a = alpha
    r = v >= 0.0f ? v : a * v;
  } else if (op == Q8_HARD_SIGMOID) {  // max(0, min(1, alpha · x + beta)), as std::max / std::min
    const float t = a * v + b;
    const float lo = t < 1.0f ? t : 1.0f;
    // std::min(1, NaN) is 1; NVIDIA's compiler makes the select above a NaN-passing min, so NaN is
    // sent where the host sends it explicitly.
    r = t != t ? 1.0f : 0.0f < lo ? lo : 0.0f;
  } else if (op == Q8_SIGMOID) {
    r = q8_sigmoid(v);
  } else if (op == Q8_EXP) {
    r = q8_exp(v);
  } else if (op == Q8_SQRT) {  // correctly rounded (-cl-fp32-correctly-rounded-divide-sqrt), as the host's
    r = sqrt(v);
  } else if (op == Q8_TANH) {  // the device's tanh: within its ulp bound of the host's (docs/opencl.md)
    r = tanh(v);
  } else if (op == Q8_ERF) {
    r = erf(v);
  } else if (op == Q8_GELU) {  // x/2 · (1 + erf(x/√2)), engine/ops/gelu.cpp's order
    r = 0.5f * v * (1.0f + erf(v * 0.7071067811865476f));
  } else if (op == Q8_RECIPROCAL) {  // IEEE-exact division, as the host's 1.0f / x
    r = 1.0f / v;
  } else if (op == Q8_NEG) {
    r = -v;
  } else if (op == Q8_ABS) {
    r = fabs(v);
  } else if (op == Q8_GELU_TANH) {  // x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³)))
    r = 0.5f * v * (1.0f + tanh(0.7978845608028654f * (v + 0.044715f * v * v * v)));
  } else {  // x · max(0, min(1, x / 6 + 1/2)), a = 6 passed as an argument: no compiler can turn the
            // division into a multiplication by a rounded reciprocal, which is not the IEEE quotient
    const float t = v / a + 0.5f;
    const float lo = t < 1.0f ? t : 1.0f;
    r = v * (0.0f < lo ? lo : 0.0f);
  }
  y[i] = r;
}
