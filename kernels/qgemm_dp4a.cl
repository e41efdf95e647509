// QGemm on NVIDIA: the same sums as qgemm.cl, four products at a time through the dp4a
// instruction (inline PTX, built only where the program is built with -DQ8_NVIDIA_PTX, so PoCL
// never sees it). w is packed at plan load as [N, K] (K contiguous). Integer sums are exact, so
// the result is the portable kernel's bit for bit.
#ifdef Q8_NVIDIA_PTX
inline int dp4a(int a, int b, int c) {
  int d;
  asm volatile("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

__kernel void qgemm_dp4a(__global const char* x, __global const char* w_nk, int rows, int k, int n, int mode, __global char* y_q,
                         __global float* y_f, __global const int* bias_q, __global const float* bias_f, __global const float* scale,
                         __global const char* residual, float r_scale, float y_ratio, int lo, int hi) {
  const int j = get_global_id(0), r = get_global_id(1);
  if (j >= n || r >= rows) return;
  const __global char* xr = x + (long)r * k;
  const __global char* wj = w_nk + (long)j * k;
  int acc = 0, i = 0;
  for (; i + 4 <= k; i += 4) acc = dp4a(as_int(vload4(0, xr + i)), as_int(vload4(0, wj + i)), acc);
  for (; i < k; ++i) acc += (int)xr[i] * (int)wj[i];
  store_output(mode, y_q, y_f, (long)r * n + j, j, acc, bias_q, bias_f, scale, residual, r_scale, y_ratio, lo, hi);
}
#endif
