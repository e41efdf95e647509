// Softmax on float32 as engine/ops/softmax.cpp computes it, a work-group of Q8_PLANE_SUM_LANES (64)
// lanes per row: the row's max (each lane over its values, then pairwise: the comparisons of
// std::max, NaN never taken), e^(x − max) by q8_exp (exp.cl) summed in double in
// engine/ops/plane_sum.h's order (layer_normalization.cl's q8_lanes_halved, which the program
// holds before this file), then each value times (float)(1 / sum). A row is len values inner
// apart; row r starts at (r / inner) · len · inner + r % inner.
#ifdef Q8_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

// A row of at most Q8_PLANE_SUM_LANES · Q8_SOFTMAX_HELD values is read once and written once, each
// lane holding its values in registers between the passes (the same values in the same order: the
// same bits); a longer one is read three times and written twice.
#define Q8_SOFTMAX_HELD 8
__kernel __attribute__((reqd_work_group_size(Q8_PLANE_SUM_LANES, 1, 1))) void softmax(__global const float* x, __global float* y, long rows,
                                                                                       long len, long inner) {
  __local double s[Q8_PLANE_SUM_LANES];
  __local float top[Q8_PLANE_SUM_LANES];
  const long r = get_group_id(0);
  const int k = (int)get_local_id(0);
  const long start = (r / inner) * len * inner + r % inner;
  __global const float* src = x + start;
  __global float* dst = y + start;
  const bool held = len <= Q8_PLANE_SUM_LANES * Q8_SOFTMAX_HELD;
  float v[Q8_SOFTMAX_HELD];
  float max = -INFINITY;
  if (held) {
#pragma unroll
    for (int c = 0; c < Q8_SOFTMAX_HELD; ++c) {
      const long j = k + c * Q8_PLANE_SUM_LANES;
      v[c] = j < len ? src[j * inner] : 0.0f;
      if (j < len) max = max < v[c] ? v[c] : max;  // std::max, NaN included
    }
  } else {
    for (long j = k; j < len; j += Q8_PLANE_SUM_LANES) max = max < src[j * inner] ? src[j * inner] : max;
  }
  top[k] = max;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = Q8_PLANE_SUM_LANES / 2; w > 0; w /= 2) {
    if (k < w) top[k] = top[k] < top[k + w] ? top[k + w] : top[k];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  max = top[0];
  double a = 0;
  if (held) {
#pragma unroll
    for (int c = 0; c < Q8_SOFTMAX_HELD; ++c)
      if (k + c * Q8_PLANE_SUM_LANES < len) {
        v[c] = q8_exp(v[c] - max);
        a += v[c];
      }
  } else {
    for (long j = k; j < len; j += Q8_PLANE_SUM_LANES) {
      const float e = q8_exp(src[j * inner] - max);
      dst[j * inner] = e;
      a += e;
    }
  }
  const float scale = (float)(1.0 / q8_lanes_halved(s, k, a));
  if (held) {
#pragma unroll
    for (int c = 0; c < Q8_SOFTMAX_HELD; ++c) {
      const long j = k + c * Q8_PLANE_SUM_LANES;
      if (j < len) dst[j * inner] = v[c] * scale;
    }
  } else {
    for (long j = k; j < len; j += Q8_PLANE_SUM_LANES) dst[j * inner] *= scale;
  }
}
#endif
