// The weighted kernels' epilogue on OpenCL (docs/quantization.md, "Requantization" and "GELU in
// the epilogue"): what happens to one int32 accumulator, in the modes abi.h names. The program
// holds it after requantize.cl, exp.cl, gelu.cl and epilogue_activation.cl, whose functions it calls; the host's
// counterpart is engine/plan/reference/epilogue.cpp, over the same functions.
inline char requantize(int t, float m, int lo, int hi) { return (char)q8_requantized(t, m, lo, hi); }

inline char residual_out(int mode, int t, float m, char r, float r_scale, float y_ratio, int lo, int hi) {
  return (char)q8_residual_sum(mode, t, m, r, r_scale, y_ratio, lo, hi);
}

// The float value of a mode from Q8_FLOAT_OUT on: v = acc · S + b, then the activation's f(v).
inline float float_epilogue(int mode, int acc, float s, float b) { return q8_epilogue_activation(mode, q8_dequantized(acc, s, b)); }

// Writes output `index` of channel c from its accumulator. y and bias are the same buffers seen
// as int8 / float and int32 / float: the mode (abi.h) says which. In the activation modes bias and
// scale are float (b, S), and an int8 output is QuantizeLinear's rne(v / s_y) saturated, with s_y
// passed as r_scale (no residual there). y_ratio is A of the rounded residual modes.
inline void store_output(int mode, __global char* y_q, __global float* y_f, long index, int c, int acc, __global const int* bias_q,
                         __global const float* bias_f, __global const float* scale, __global const char* residual, float r_scale,
                         float y_ratio, int lo, int hi) {
  if (mode >= Q8_FLOAT_OUT) {
    const float g = float_epilogue(mode, acc, scale[c], bias_f[c]);
    if (q8_int8_after_activation(mode)) y_q[index] = (char)q8_quantized(g, r_scale);
    else y_f[index] = g;
    return;
  }
  const int t = acc + bias_q[c];
  y_q[index] = mode == Q8_INT8_OUT ? requantize(t, scale[c], lo, hi) : residual_out(mode, t, scale[c], residual[index], r_scale, y_ratio, lo, hi);
}
