// Reduce{Sum,Mean,SumSquare,L1,L2,Max,Min} of float32 over trailing axes, as engine/ops/reduce.cpp
// computes them: one work-item per output, its len contiguous values in index order; sums in double
// (Mean divides the double sum by len, L2 takes its double square root, then one rounding to float);
// Max and Min start from ∓inf and keep the running value where the comparison is false, so NaN is
// passed over as the host's std::max and std::min pass it. Op codes are abi.h's.
#ifdef Q8_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void reduce_float(__global const float* x, __global float* y, long outputs, long len, int kind) {
  const long r = get_global_id(0);
  if (r >= outputs) return;
  __global const float* row = x + r * len;
  if (kind == Q8_REDUCE_MAX || kind == Q8_REDUCE_MIN) {
    float m = kind == Q8_REDUCE_MAX ? -INFINITY : INFINITY;
    for (long j = 0; j < len; ++j) m = kind == Q8_REDUCE_MAX ? (m < row[j] ? row[j] : m) : (row[j] < m ? row[j] : m);
    y[r] = m;
    return;
  }
  double acc = 0;
  for (long j = 0; j < len; ++j) {
    const double v = row[j];
    acc += kind == Q8_REDUCE_SUM_SQUARE || kind == Q8_REDUCE_L2 ? v * v : kind == Q8_REDUCE_L1 ? fabs(v) : v;
  }
  y[r] = (float)(kind == Q8_REDUCE_MEAN ? acc / (double)len : kind == Q8_REDUCE_L2 ? sqrt(acc) : acc);
}
#endif
