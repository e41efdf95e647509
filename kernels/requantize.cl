// The per-element epilogue of docs/quantization.md ("Requantization"), as engine/plan/requantize.h
// computes it on the host, bit for bit: no contraction (the pragma), rint (ties to even), an
// explicit fma only where the formula has one. Every other kernel file follows this one.
#pragma OPENCL FP_CONTRACT OFF

// y_q = clamp(rne((float)t · m), lo, hi)
inline char requantize(int t, float m, int lo, int hi) {
  const float g = (float)t * m;
  return (char)clamp(rint(g), (float)lo, (float)hi);
}

// z_q = clamp(rne(fma((float)t, m, (float)r · r_scale)), lo, hi)
inline char requantize_residual(int t, float m, char r, float r_scale, int lo, int hi) {
  const float rr = (float)r * r_scale;
  const float g = fma((float)t, m, rr);
  return (char)clamp(rint(g), (float)lo, (float)hi);
}

// y = (float)acc · s + bias: a multiply, then an add.
inline float dequantize_accumulator(int acc, float s, float bias) {
  const float product = (float)acc * s;
  return product + bias;
}

// The weighted ops' epilogue modes.
#define Q8_INT8_OUT 0
#define Q8_INT8_OUT_RESIDUAL 1
#define Q8_FLOAT_OUT 2

// Writes output `index` of channel c from its accumulator. y and bias are the same buffers seen
// as int8 / float and int32 / float: the mode says which.
inline void store_output(int mode, __global char* y_q, __global float* y_f, long index, int c, int acc, __global const int* bias_q,
                         __global const float* bias_f, __global const float* scale, __global const char* residual, float r_scale,
                         int lo, int hi) {
  if (mode == Q8_FLOAT_OUT) {
    y_f[index] = dequantize_accumulator(acc, scale[c], bias_f[c]);
    return;
  }
  const int t = acc + bias_q[c];
  y_q[index] = mode == Q8_INT8_OUT_RESIDUAL ? requantize_residual(t, scale[c], residual[index], r_scale, lo, hi)
                                            : requantize(t, scale[c], lo, hi);
}
