// Softmax on float32 as engine/ops/softmax.cpp computes it, one work-item per row: the row's max,
// e^(x − max) by q8_exp (exp.cl) summed in double in index order, then each value times
// (float)(1 / sum). A row is len values inner apart; row r starts at (r / inner) · len · inner +
// r % inner.
#ifdef Q8_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void softmax(__global const float* x, __global float* y, long rows, long len, long inner) {
  const long r = get_global_id(0);
  if (r >= rows) return;
  const long start = (r / inner) * len * inner + r % inner;
  __global const float* src = x + start;
  __global float* dst = y + start;
  float max = -INFINITY;
  for (long j = 0; j < len; ++j) max = max < src[j * inner] ? src[j * inner] : max;  // std::max, NaN included
  double sum = 0;
  for (long j = 0; j < len; ++j) {
    const float e = q8_exp(src[j * inner] - max);
    dst[j * inner] = e;
    sum += e;
  }
  const float scale = (float)(1.0 / sum);
  for (long j = 0; j < len; ++j) dst[j * inner] *= scale;
}
#endif
