// GlobalAveragePool on float32, as engine/ops/global_average_pool.cpp: each plane's mean summed in
// double, value i into partial sum i mod 4, combined as (s0 + s1) + (s2 + s3). Needs cl_khr_fp64.
#ifdef Q8_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void global_average_pool(__global const float* x, __global float* y, long planes, long size) {
  const long p = get_global_id(0);
  if (p >= planes) return;
  __global const float* v = x + p * size;
  double s[4] = {0.0, 0.0, 0.0, 0.0};
  long i = 0;
  for (; i + 4 <= size; i += 4)
    for (int k = 0; k < 4; ++k) s[k] += (double)v[i + k];
  for (int k = 0; i < size; ++i, ++k) s[k] += (double)v[i];
  y[p] = (float)(((s[0] + s[1]) + (s[2] + s[3])) / (double)size);
}
#endif
