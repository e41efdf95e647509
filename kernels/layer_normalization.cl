// LayerNormalization on float32 as engine/ops/layer_normalization.cpp computes it, a work-group of
// Q8_PLANE_SUM_LANES (64) lanes per row of len contiguous values: the sum and the squared
// deviations in double in engine/ops/plane_sum.h's order (lane k sums values k, k + 64, …, then
// the 64 partial sums halved pairwise in local memory), inv = (float)(1 / sqrt(var + epsilon)) in
// double, then (x − (float)mean) · inv · scale + bias in float, each lane its own values (no
// contraction: requantize.cl's pragma). scale and bias are len values each (the host broadcasts
// them); bias may be absent (has_bias 0).
#ifdef Q8_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

// The halving of plane_sum.h over s[0 … 63], every lane of the work-group calling it; s[0] after.
inline double q8_lanes_halved(__local double* s, int k, double partial) {
  s[k] = partial;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = Q8_PLANE_SUM_LANES / 2; w > 0; w /= 2) {
    if (k < w) s[k] = s[k] + s[k + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const double total = s[0];
  barrier(CLK_LOCAL_MEM_FENCE);  // s is free again
  return total;
}

__kernel __attribute__((reqd_work_group_size(Q8_PLANE_SUM_LANES, 1, 1))) void layer_normalization(
    __global const float* x, __global const float* scale, __global const float* bias, __global float* y, long rows, long len, float epsilon,
    int has_bias) {
  __local double s[Q8_PLANE_SUM_LANES];
  const long r = get_group_id(0);
  const int k = (int)get_local_id(0);
  __global const float* row = x + r * len;
  __global float* out = y + r * len;
  double a = 0;
  for (long j = k; j < len; j += Q8_PLANE_SUM_LANES) a += (double)row[j];
  const double mu = q8_lanes_halved(s, k, a) / (double)len;
  double b = 0;
  for (long j = k; j < len; j += Q8_PLANE_SUM_LANES) b += (row[j] - mu) * (row[j] - mu);
  const double sq = q8_lanes_halved(s, k, b);
  const float inv = (float)(1.0 / sqrt(sq / (double)len + (double)epsilon));
  const float m = (float)mu;
  for (long j = k; j < len; j += Q8_PLANE_SUM_LANES) out[j] = (row[j] - m) * inv * scale[j] + (has_bias ? bias[j] : 0.0f);
}
#endif
