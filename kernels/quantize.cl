// QuantizeLinear and DequantizeLinear, per tensor, int8, as engine/ops/quantize_linear.cpp and
// dequantize_linear.cpp compute them: y = clamp(rne(x / s) + z, -128, 127) and
// x = (float)((int)q - z) · s. The division is IEEE-exact only in a program built with
// -cl-fp32-correctly-rounded-divide-sqrt (engine/opencl/select.h), on devices that offer it.
__kernel void quantize_linear(__global const float* x, __global char* y, long count, float s, float z) {
  const long i = get_global_id(0);
  if (i >= count) return;
  const float q = rint(x[i] / s) + z;
  y[i] = (char)clamp(q, -128.0f, 127.0f);
}

__kernel void dequantize_linear(__global const char* q, __global float* x, long count, float s, int z) {
  const long i = get_global_id(0);
  if (i >= count) return;
  x[i] = (float)((int)q[i] - z) * s;
}
