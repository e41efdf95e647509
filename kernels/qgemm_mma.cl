// QGemm on NVIDIA tensor cores: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 through inline PTX,
// built only where the program is built with -DQ8_NVIDIA_PTX (PoCL never sees it) and chosen only
// on sm_80 and later (engine/opencl/select.h). One warp (a work-group of 32) computes a 16 × 32
// tile of y: per 32-wide step of K, one A fragment of x's rows and four B fragments of w (packed at
// plan load as [N, K], K contiguous), read from global memory, then four mma. Operands past rows, n
// or k read as 0. Fragments as the PTX ISA lays them out for m16n8k32 with 8-bit operands (lane =
// 4·g + t): A registers 0–3 hold row g or g + 8, columns 4t…4t+3 or 16 + 4t…; B registers 0–1
// hold column g, rows 4t… or 16 + 4t…; D registers 0–3 hold row g (0, 1) or g + 8 (2, 3), columns
// 2t and 2t + 1. spatial = 0 stores y as [rows, n]; spatial = P > 0 stores row r, column j at
// ((r / P) · n + j) · P + r % P, the NCHW layout of a QConv whose rows im2col.cl made. Integer
// sums are exact (the plan builder keeps them inside int32), so y is the
// portable kernel's bit for bit.
#ifdef Q8_NVIDIA_PTX
// Four int8 of row r, columns c…c+3, of a [rows, k] matrix, packed lowest byte first; 0 outside.
inline int load4(__global const char* m, int rows, int k, int r, int c) {
  if (r >= rows || c >= k) return 0;
  const __global char* p = m + (long)r * k + c;
  if (c + 4 <= k) return as_int(vload4(0, p));
  return as_int((char4)(p[0], c + 1 < k ? p[1] : 0, c + 2 < k ? p[2] : 0, 0));
}

__kernel __attribute__((reqd_work_group_size(32, 1, 1))) void qgemm_mma(
    __global const char* x, __global const char* w_nk, int rows, int k, int n, int spatial, int mode, __global char* y_q, __global float* y_f,
    __global const int* bias_q, __global const float* bias_f, __global const float* scale, __global const char* residual, float r_scale,
    int lo, int hi) {
  const int lane = get_local_id(0), g = lane >> 2, t = lane & 3;
  const int col0 = get_group_id(0) * 32, row0 = get_group_id(1) * 16;
  int acc[4][4];
  for (int s = 0; s < 4; ++s)
    for (int i = 0; i < 4; ++i) acc[s][i] = 0;
  for (int k0 = 0; k0 < k; k0 += 32) {
    const int a0 = load4(x, rows, k, row0 + g, k0 + 4 * t), a1 = load4(x, rows, k, row0 + g + 8, k0 + 4 * t);
    const int a2 = load4(x, rows, k, row0 + g, k0 + 16 + 4 * t), a3 = load4(x, rows, k, row0 + g + 8, k0 + 16 + 4 * t);
    for (int s = 0; s < 4; ++s) {
      const int b0 = load4(w_nk, n, k, col0 + 8 * s + g, k0 + 4 * t), b1 = load4(w_nk, n, k, col0 + 8 * s + g, k0 + 16 + 4 * t);
      int d0, d1, d2, d3;
      asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                   : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)
                   : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(acc[s][0]), "r"(acc[s][1]), "r"(acc[s][2]), "r"(acc[s][3]));
      acc[s][0] = d0, acc[s][1] = d1, acc[s][2] = d2, acc[s][3] = d3;
    }
  }
  for (int s = 0; s < 4; ++s)
    for (int i = 0; i < 4; ++i) {
      const int r = row0 + g + (i >= 2 ? 8 : 0), j = col0 + 8 * s + 2 * t + (i & 1);
      const long index = spatial ? ((long)(r / spatial) * n + j) * spatial + r % spatial : (long)r * n + j;
      if (r < rows && j < n) store_output(mode, y_q, y_f, index, j, acc[s][i], bias_q, bias_f, scale, residual, r_scale, lo, hi);
    }
}
#endif
