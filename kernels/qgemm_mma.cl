// QGemm on NVIDIA tensor cores: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 through inline PTX,
// built only where the program is built with -DQ8_NVIDIA_PTX (PoCL never sees it) and chosen only
// on sm_80 and later (engine/opencl/select.h, which also sets the tile through -D). A work-group
// of Q8_MMA_WARPS_M × Q8_MMA_WARPS_N warps computes a Q8_MMA_BM × Q8_MMA_BN tile of y; per
// 32-wide step of K it stages x's rows and w's rows (w packed at plan load as [N, K], K contiguous)
// in __local memory, 16 bytes per work-item and load, rows 48 bytes apart so that a warp's
// fragment reads hit 32 different banks, and each warp then runs (BM / WARPS_M / 16) ·
// (BN / WARPS_N / 8) mma on its part. Two stages: while the warps multiply one, the next step's
// tiles arrive in the other, by cp.async where K is a multiple of 16 (plain loads and stores
// otherwise). Operands past rows, n or k read as 0.
// Fragments as the PTX ISA lays them out for m16n8k32 with 8-bit operands (lane = 4·g + t): A
// registers 0–3 hold row g or g + 8, columns 4t…4t+3 or 16 + 4t…; B registers 0–1 hold column g,
// rows 4t… or 16 + 4t…; D registers 0–3 hold row g (0, 1) or g + 8 (2, 3), columns 2t and 2t + 1.
// spatial = 0 stores y as [rows, n]; spatial = P > 0 stores row r, column j at
// ((r / P) · n + j) · P + r % P, the NCHW layout of a QConv whose rows im2col.cl made. Integer
// sums are exact (the plan builder keeps them inside int32), so y is the portable kernel's bit for
// bit.
#ifdef Q8_NVIDIA_PTX
#define Q8_MMA_STRIDE 48
#define Q8_MMA_THREADS (32 * Q8_MMA_WARPS_M * Q8_MMA_WARPS_N)
#define Q8_MMA_TM (Q8_MMA_BM / Q8_MMA_WARPS_M / 16)  // m16 tiles per warp
#define Q8_MMA_TN (Q8_MMA_BN / Q8_MMA_WARPS_N / 8)   // n8 tiles per warp

// Bytes c…c+15 of row r of a [rows, k] matrix (c a multiple of 16); 0 outside. One 16-byte load
// where rows are 16-byte aligned (k a multiple of 16; buffers are aligned far more).
inline int4 load16(__global const char* m, int rows, int k, int r, int c) {
  if (r >= rows || c >= k) return (int4)(0);
  const __global char* p = m + (long)r * k + c;
  if ((k & 15) == 0) return *(__global const int4*)p;
  if (c + 16 <= k) return as_int4(vload16(0, p));
  char16 v = (char16)(0);
  char* lanes = (char*)&v;
  for (int i = 0; c + i < k; ++i) lanes[i] = p[i];
  return as_int4(v);
}

// Rows r0… of a [rows, k] matrix, columns k0…k0+31, into tile (count rows, Q8_MMA_STRIDE apart):
// with k a multiple of 16, 16-byte cp.async copies (src-size 0 fills zeros past the edges) that
// complete at cp.async.wait_group; else loads and stores, complete on return.
inline void stage(__local char* tile, int count, __global const char* m, int rows, int k, int r0, int k0, int tid) {
  for (int chunk = tid; chunk < 2 * count; chunk += Q8_MMA_THREADS) {
    const int row = chunk >> 1, col = (chunk & 1) * 16;
    __local char* dst = tile + row * Q8_MMA_STRIDE + col;
    if ((k & 15) == 0) {
      const bool inside = r0 + row < rows && k0 + col < k;
      const __global char* src = inside ? m + (long)(r0 + row) * k + k0 + col : m;
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"((uint)(size_t)dst), "l"(src), "r"(inside ? 16 : 0) : "memory");
    } else {
      *(__local int4*)dst = load16(m, rows, k, r0 + row, k0 + col);
    }
  }
}

inline int fragment(__local const char* tile, int row, int col) { return *(__local const int*)(tile + row * Q8_MMA_STRIDE + col); }

__kernel __attribute__((reqd_work_group_size(Q8_MMA_THREADS, 1, 1))) void qgemm_mma(
    __global const char* x, __global const char* w_nk, int rows, int k, int n, int spatial, int mode, __global char* y_q,
    __global float* y_f, __global const int* bias_q, __global const float* bias_f, __global const float* scale,
    __global const char* residual, float r_scale, int lo, int hi) {
  __local char xs[2][Q8_MMA_BM * Q8_MMA_STRIDE] __attribute__((aligned(16)));
  __local char ws[2][Q8_MMA_BN * Q8_MMA_STRIDE] __attribute__((aligned(16)));
  const int tid = get_local_id(0), warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
  const int wm = (warp / Q8_MMA_WARPS_N) * Q8_MMA_TM * 16, wn = (warp % Q8_MMA_WARPS_N) * Q8_MMA_TN * 8;
  const int row0 = get_group_id(1) * Q8_MMA_BM, col0 = get_group_id(0) * Q8_MMA_BN;
  int acc[Q8_MMA_TM][Q8_MMA_TN][4];
  for (int a = 0; a < Q8_MMA_TM; ++a)
    for (int b = 0; b < Q8_MMA_TN; ++b)
      for (int i = 0; i < 4; ++i) acc[a][b][i] = 0;
  stage(xs[0], Q8_MMA_BM, x, rows, k, row0, 0, tid);
  stage(ws[0], Q8_MMA_BN, w_nk, n, k, col0, 0, tid);
  asm volatile("cp.async.commit_group;" ::: "memory");
  for (int k0 = 0, s = 0; k0 < k; k0 += 32, s ^= 1) {
    if (k0 + 32 < k) {  // the next step's tiles into the other stage
      stage(xs[s ^ 1], Q8_MMA_BM, x, rows, k, row0, k0 + 32, tid);
      stage(ws[s ^ 1], Q8_MMA_BN, w_nk, n, k, col0, k0 + 32, tid);
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 1;" ::: "memory");  // this step's group has landed
    barrier(CLK_LOCAL_MEM_FENCE);
    __local const char* xt = xs[s];
    __local const char* wt = ws[s];
    int bf[Q8_MMA_TN][2];
    for (int b = 0; b < Q8_MMA_TN; ++b) {
      bf[b][0] = fragment(wt, wn + 8 * b + g, 4 * t);
      bf[b][1] = fragment(wt, wn + 8 * b + g, 16 + 4 * t);
    }
    for (int a = 0; a < Q8_MMA_TM; ++a) {
      const int r = wm + 16 * a + g;
      const int a0 = fragment(xt, r, 4 * t), a1 = fragment(xt, r + 8, 4 * t);
      const int a2 = fragment(xt, r, 16 + 4 * t), a3 = fragment(xt, r + 8, 16 + 4 * t);
      for (int b = 0; b < Q8_MMA_TN; ++b) {
        int d0, d1, d2, d3;
        asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                     : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(bf[b][0]), "r"(bf[b][1]), "r"(acc[a][b][0]), "r"(acc[a][b][1]),
                       "r"(acc[a][b][2]), "r"(acc[a][b][3]));
        acc[a][b][0] = d0, acc[a][b][1] = d1, acc[a][b][2] = d2, acc[a][b][3] = d3;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int a = 0; a < Q8_MMA_TM; ++a)
    for (int b = 0; b < Q8_MMA_TN; ++b)
      for (int i = 0; i < 4; ++i) {
        const int r = row0 + wm + 16 * a + g + (i >= 2 ? 8 : 0), j = col0 + wn + 8 * b + 2 * t + (i & 1);
        if (r >= rows || j >= n) continue;
        const long index = spatial ? ((long)(r / spatial) * n + j) * spatial + r % spatial : (long)r * n + j;
        store_output(mode, y_q, y_f, index, j, acc[a][b][i], bias_q, bias_f, scale, residual, r_scale, lo, hi);
      }
}
#endif
