// GlobalAveragePool on float32, as engine/ops/plane_sum.h orders the sum: Q8_PLANE_SUM_LANES (64)
// lanes per plane, Q8_PLANE_SUM_PLANES planes a work-group (small planes, 7 × 7 or 14 × 14, leave
// most of a lane's work to the barriers, which the planes of a group share), lane k summing values
// k, k + 64, … in double (neighbouring lanes read neighbouring values), then the 64 partial sums
// halved pairwise in local memory, s[j] + s[j + w] for w = 32, 16, …, 1. Needs cl_khr_fp64.
#ifdef Q8_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel __attribute__((reqd_work_group_size(Q8_PLANE_SUM_LANES * Q8_PLANE_SUM_PLANES, 1, 1))) void global_average_pool(
    __global const float* x, __global float* y, long planes, long size) {
  __local double lanes[Q8_PLANE_SUM_LANES * Q8_PLANE_SUM_PLANES];
  const int lid = (int)get_local_id(0), k = lid % Q8_PLANE_SUM_LANES;
  const long p = get_group_id(0) * Q8_PLANE_SUM_PLANES + lid / Q8_PLANE_SUM_LANES;
  __local double* s = lanes + (lid / Q8_PLANE_SUM_LANES) * Q8_PLANE_SUM_LANES;
  double a = 0.0;
  if (p < planes) {  // the last group's spare planes still meet every barrier
    __global const float* v = x + p * size;
    for (long i = k; i < size; i += Q8_PLANE_SUM_LANES) a += (double)v[i];
  }
  s[k] = a;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = Q8_PLANE_SUM_LANES / 2; w > 0; w /= 2) {
    if (k < w) s[k] = s[k] + s[k + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (k == 0 && p < planes) y[p] = (float)(s[0] / (double)size);
}
#endif
