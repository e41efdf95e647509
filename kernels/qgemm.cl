// QGemm, portable: one work-item per output element (column j, row r), the K products summed in
// int; then the epilogue (requantize.cl). x [rows, K], w [K, N] or [N, K] with trans_b.
__kernel void qgemm(__global const char* x, __global const char* w, int rows, int k, int n, int trans_b,
                    int mode, __global char* y_q, __global float* y_f, __global const int* bias_q, __global const float* bias_f,
                    __global const float* scale, __global const char* residual, float r_scale, float y_ratio, int lo, int hi) {
  const int j = get_global_id(0), r = get_global_id(1);
  if (j >= n || r >= rows) return;
  const __global char* xr = x + (long)r * k;
  int acc = 0;
  if (trans_b) {
    const __global char* wj = w + (long)j * k;
    for (int i = 0; i < k; ++i) acc += (int)xr[i] * (int)wj[i];
  } else {
    for (int i = 0; i < k; ++i) acc += (int)xr[i] * (int)w[(long)i * n + j];
  }
  store_output(mode, y_q, y_f, (long)r * n + j, j, acc, bias_q, bias_f, scale, residual, r_scale, y_ratio, lo, hi);
}
