// The per-element epilogue of docs/quantization.md ("Requantization"), one text for the host and
// every OpenCL device: engine/plan/requantize.h includes this file, and the program holds it right
// after abi.h. Every step is one IEEE operation or an explicit fma and nothing is contracted (the
// pragma here; -ffp-contract=off on the host); ties round to even. Written in the subset of C++
// and OpenCL C both compile; the three macros are the only difference.
#if defined(__OPENCL_C_VERSION__) || defined(__OPENCL_VERSION__)
#pragma OPENCL FP_CONTRACT OFF
#define Q8_REQ_FMA(a, b, c) fma(a, b, c)
#define Q8_REQ_ROUND(x) rint(x)
#define Q8_REQ_CLAMP(v, lo, hi) clamp(v, lo, hi)
#else
#define Q8_REQ_FMA(a, b, c) std::fma(float(a), float(b), float(c))
#define Q8_REQ_ROUND(x) round_half_even(float(x))
#define Q8_REQ_CLAMP(v, lo, hi) std::clamp(float(v), float(lo), float(hi))
#endif

// y_q = clamp(rne((float)t · m), lo, hi), an integer held in a float.
inline float q8_requantized(int t, float m, int lo, int hi) {
  const float g = (float)t * m;
  return Q8_REQ_CLAMP(Q8_REQ_ROUND(g), (float)lo, (float)hi);
}

// z_q = clamp(rne(fma((float)t, m, (float)r · r_scale)), lo, hi): a residual add in a weighted
// op's epilogue, and the standalone INT8 Add (t = a, m = A, r = b, r_scale = B).
inline float q8_requantized_sum(int t, float m, int r, float r_scale, int lo, int hi) {
  const float rr = (float)r * r_scale;
  const float g = Q8_REQ_FMA((float)t, m, rr);
  return Q8_REQ_CLAMP(Q8_REQ_ROUND(g), (float)lo, (float)hi);
}

// A weighted op's int8 output with a residual, in abi.h's residual modes (docs/quantization.md,
// "Residual Add"): t and m the op's accumulator with its bias and multiplier, r the residual and
// r_scale its ratio R; in the rounded modes y_ratio is A, the ratio of the op's own int8 output.
inline float q8_residual_sum(int mode, int t, float m, int r, float r_scale, float y_ratio, int lo, int hi) {
  if (mode == Q8_INT8_OUT_RESIDUAL) return q8_requantized_sum(t, m, r, r_scale, lo, hi);
  const int y = (int)q8_requantized(t, m, -128, 127);
  return mode == Q8_INT8_OUT_ROUNDED_RESIDUAL ? q8_requantized_sum(y, y_ratio, r, r_scale, lo, hi)
                                              : q8_requantized_sum(r, r_scale, y, y_ratio, lo, hi);
}

// INT8 in, FP32 out: y = (float)acc · s + bias, a multiply then an add, two roundings.
inline float q8_dequantized(int acc, float s, float bias) {
  const float product = (float)acc * s;
  return product + bias;
}

// QuantizeLinear's int8 arithmetic: clamp(rne(v / s), -128, 127), an integer held in a float (a
// GELU epilogue's int8 output, docs/quantization.md). v is finite there.
inline float q8_quantized(float v, float s) { return Q8_REQ_CLAMP(Q8_REQ_ROUND(v / s), -128.0f, 127.0f); }
