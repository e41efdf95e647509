// LayerNormalization on float32 as engine/ops/layer_normalization.cpp computes it, one work-item
// per row of len contiguous values: the sum and the squared deviations in double in index order,
// inv = (float)(1 / sqrt(var + epsilon)) in double, then (x − (float)mean) · inv · scale + bias in
// float (no contraction: requantize.cl's pragma). scale and bias are len values each (the host
// broadcasts them); bias may be absent (has_bias 0).
#ifdef Q8_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void layer_normalization(__global const float* x, __global const float* scale, __global const float* bias, __global float* y,
                                  long rows, long len, float epsilon, int has_bias) {
  const long r = get_global_id(0);
  if (r >= rows) return;
  __global const float* row = x + r * len;
  __global float* out = y + r * len;
  double sum = 0, sq = 0;
  for (long j = 0; j < len; ++j) sum += row[j];
  const double mu = sum / (double)len;
  for (long j = 0; j < len; ++j) sq += (row[j] - mu) * (row[j] - mu);
  const float inv = (float)(1.0 / sqrt(sq / (double)len + (double)epsilon));
  const float m = (float)mu;
  for (long j = 0; j < len; ++j) out[j] = (row[j] - m) * inv * scale[j] + (has_bias ? bias[j] : 0.0f);
}
#endif
