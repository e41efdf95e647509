// QGemm on NVIDIA tensor cores: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 through inline PTX,
// built only where the program is built with -DQ8_NVIDIA_PTX (PoCL never sees it) and chosen only
// on sm_80 and later (engine/opencl/select.h, which also sets the tile through -D). A work-group
// of Q8_MMA_WARPS_M × Q8_MMA_WARPS_N warps computes a Q8_MMA_BM × Q8_MMA_BN tile of y. K goes in
// steps of Q8_MMA_BK (32 or 64): each step stages x's rows and w's rows (w packed at plan load as
// [N, K], K contiguous) in __local memory, 16 bytes per work-item and load, rows BK + 16 bytes
// apart so that a warp's fragment reads hit 32 different banks, and each warp then runs
// BK / 32 · (BM / WARPS_M / 16) · (BN / WARPS_N / 8) mma on its part. Q8_MMA_STAGES buffers form
// a ring: while the warps multiply one step, the next STAGES − 1 steps' tiles are on their way,
// by cp.async where K is a multiple of 16 (plain loads and stores otherwise), read back into
// fragments by ldmatrix. One barrier per step: the buffer a step refills is the one every warp
// finished with before it. The epilogue goes through the ring too, a pass of rows at a time, so
// that the stores are coalesced.
// Operands past rows, n or k read as 0.
// Fragments as the PTX ISA lays them out for m16n8k32 with 8-bit operands (lane = 4·g + t): A
// registers 0–3 hold row g or g + 8, columns 4t…4t+3 or 16 + 4t…; B registers 0–1 hold column g,
// rows 4t… or 16 + 4t…; D registers 0–3 hold row g (0, 1) or g + 8 (2, 3), columns 2t and 2t + 1.
// spatial = 0 stores y as [rows, n]; spatial = P > 0 stores row r, column j at
// ((r / P) · n + j) · P + r % P, the NCHW layout of a QConv whose rows im2col.cl made.
// residual_spatial says the same of the residual, which may lie either way whatever y does. Integer
// sums are exact (the plan builder keeps them inside int32), so y is the portable kernel's bit for
// bit.
#ifdef Q8_NVIDIA_PTX
#define Q8_MMA_STRIDE (Q8_MMA_BK + 16)
#define Q8_MMA_THREADS (32 * Q8_MMA_WARPS_M * Q8_MMA_WARPS_N)
#define Q8_MMA_TM (Q8_MMA_BM / Q8_MMA_WARPS_M / 16)  // m16 tiles per warp
#define Q8_MMA_TN (Q8_MMA_BN / Q8_MMA_WARPS_N / 8)   // n8 tiles per warp
#define Q8_MMA_CHUNKS (Q8_MMA_BK / 16)               // 16-byte pieces of a staged row
#define Q8_MMA_RING (Q8_MMA_STAGES * (Q8_MMA_BM + Q8_MMA_BN) * Q8_MMA_STRIDE)
// The epilogue's staging of int32 accumulators in the ring, Q8_MMA_PASS rows at a time: row-major
// rows BN + 8 apart, or column-major columns PASS + 4 apart (padding against bank conflicts). PASS
// is the largest multiple of 16 (at most BM, dividing it) for which both fit.
#define Q8_MMA_ROW_STRIDE (Q8_MMA_BN + 8)
#define Q8_MMA_PASS_FIT_R (Q8_MMA_RING / (4 * Q8_MMA_ROW_STRIDE))
#define Q8_MMA_PASS_FIT_C (Q8_MMA_RING / (4 * Q8_MMA_BN) - 4)
#define Q8_MMA_PASS_FIT (Q8_MMA_PASS_FIT_R < Q8_MMA_PASS_FIT_C ? Q8_MMA_PASS_FIT_R : Q8_MMA_PASS_FIT_C)
#if Q8_MMA_PASS_FIT >= Q8_MMA_BM
#define Q8_MMA_PASS Q8_MMA_BM
#elif Q8_MMA_PASS_FIT >= 128 && Q8_MMA_BM % 128 == 0
#define Q8_MMA_PASS 128
#elif Q8_MMA_PASS_FIT >= 64 && Q8_MMA_BM % 64 == 0
#define Q8_MMA_PASS 64
#elif Q8_MMA_PASS_FIT >= 32 && Q8_MMA_BM % 32 == 0
#define Q8_MMA_PASS 32
#else
#define Q8_MMA_PASS 16
#endif
#define Q8_MMA_COL_STRIDE (Q8_MMA_PASS + 4)
#if Q8_MMA_STAGES == 2
#define Q8_MMA_WAIT "cp.async.wait_group 0;"
#elif Q8_MMA_STAGES == 3
#define Q8_MMA_WAIT "cp.async.wait_group 1;"
#elif Q8_MMA_STAGES == 4
#define Q8_MMA_WAIT "cp.async.wait_group 2;"
#endif

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

// Rows r0… of a [rows, k] matrix, columns k0…k0+BK−1, into tile (count rows, Q8_MMA_STRIDE
// apart): with k a multiple of 16, 16-byte cp.async copies (src-size 0 fills zeros past the
// edges) that complete at cp.async.wait_group; else loads and stores, complete on return.
inline void stage(__local char* tile, int count, __global const char* m, int rows, int k, int r0, int k0, int tid) {
  for (int chunk = tid; chunk < Q8_MMA_CHUNKS * count; chunk += Q8_MMA_THREADS) {
    const int row = chunk / Q8_MMA_CHUNKS, col = (chunk % Q8_MMA_CHUNKS) * 16;
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

// Where row r, column j of a [rows, n] result lies: [rows, n] itself (spatial 0), or NCHW with P =
// spatial positions per sample.
inline long at_layout(int r, int j, int n, int spatial) {
  return spatial == 0 ? (long)r * n + j : ((long)(r / spatial) * n + j) * spatial + r % spatial;
}

inline int fragment(__local const char* tile, int row, int col) { return *(__local const int*)(tile + row * Q8_MMA_STRIDE + col); }

// ldmatrix.sync.aligned.m8n8.x4.shared.b16: four 8 × 8 b16 (8 × 16-byte) matrices, p this lane's row.
inline void ldmatrix_x4(__local const char* p, int* r0, int* r1, int* r2, int* r3) {
  int v0, v1, v2, v3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "r"((uint)(size_t)p));
  *r0 = v0, *r1 = v1, *r2 = v2, *r3 = v3;
}

// Implicit im2col (qconv_implicit_mma): the rows of x are a 2-D conv's windows over a channels-last
// input ([N, H, W, C], C a multiple of 16, columns tap-major: kk = tap · C + ci), read
// straight from it into the ring. A work-item stages the same chunks (rows, 16-byte columns) at
// every step, so each chunk's window corner is worked out once, and its tap and channel advance
// by BK a step; a chunk in the padding or past the rows is filled with zeros by cp.async.
#define Q8_MMA_A_PER ((Q8_MMA_CHUNKS * Q8_MMA_BM + Q8_MMA_THREADS - 1) / Q8_MMA_THREADS)
typedef struct {
  long base[Q8_MMA_A_PER];                                 // the sample's first byte; −1 past the rows
  int y0[Q8_MMA_A_PER], x0[Q8_MMA_A_PER];                  // the window's corner, maybe in the padding
  int b[Q8_MMA_A_PER], e[Q8_MMA_A_PER], ci[Q8_MMA_A_PER];  // the next step's tap row, tap column, channel
} ImplicitRows;

// geometry as qconv.cl's (one spatial axis of depth); c the input's channels; k0 the first
// column of the first step (0, or a split's first step · BK).
inline void implicit_rows(ImplicitRows* s, __global const int* geometry, int c, int row0, int rows, int tid, int k0) {
  const int in_h = geometry[Q8_GEO_IN + 1], in_w = geometry[Q8_GEO_IN + 2], out_w = geometry[Q8_GEO_OUT + 2], k_w = geometry[Q8_GEO_KERNEL + 2], out_size = geometry[Q8_GEO_OUT + 1] * out_w;
  for (int i = 0; i < Q8_MMA_A_PER; ++i) {
    const int chunk = tid + i * Q8_MMA_THREADS, r = row0 + chunk / Q8_MMA_CHUNKS, col = k0 + (chunk % Q8_MMA_CHUNKS) * 16;
    const int sample = r / out_size, o = r % out_size, tap = col / c;
    s->base[i] = chunk < Q8_MMA_CHUNKS * Q8_MMA_BM && r < rows ? (long)sample * in_h * in_w * c : -1;
    s->y0[i] = (o / out_w) * geometry[Q8_GEO_STRIDES + 1] - geometry[Q8_GEO_PADS + 1];
    s->x0[i] = (o % out_w) * geometry[Q8_GEO_STRIDES + 2] - geometry[Q8_GEO_PADS + 2];
    s->b[i] = tap / k_w, s->e[i] = tap % k_w, s->ci[i] = col % c;
  }
}

// The next step's x tile (the steps come in order), then each chunk's tap and channel BK further.
inline void stage_implicit(__local char* tile, ImplicitRows* s, __global const char* x, __global const int* geometry, int c, int tid) {
  const int in_h = geometry[Q8_GEO_IN + 1], in_w = geometry[Q8_GEO_IN + 2], k_h = geometry[Q8_GEO_KERNEL + 1], k_w = geometry[Q8_GEO_KERNEL + 2], dy = geometry[Q8_GEO_DILATIONS + 1], dx = geometry[Q8_GEO_DILATIONS + 2];
  for (int i = 0; i < Q8_MMA_A_PER; ++i) {
    const int chunk = tid + i * Q8_MMA_THREADS;
    if (chunk >= Q8_MMA_CHUNKS * Q8_MMA_BM) break;
    __local char* dst = tile + (chunk / Q8_MMA_CHUNKS) * Q8_MMA_STRIDE + (chunk % Q8_MMA_CHUNKS) * 16;
    const int iy = s->y0[i] + s->b[i] * dy, ix = s->x0[i] + s->e[i] * dx;
    const bool inside = s->base[i] >= 0 && s->b[i] < k_h && iy >= 0 && iy < in_h && ix >= 0 && ix < in_w;
    const __global char* src = inside ? x + s->base[i] + ((long)iy * in_w + ix) * c + s->ci[i] : x;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"((uint)(size_t)dst), "l"(src), "r"(inside ? 16 : 0) : "memory");
    int ci = s->ci[i] + Q8_MMA_BK, e = s->e[i], b = s->b[i];
    while (ci >= c) {
      ci -= c;
      if (++e == k_w) e = 0, ++b;
    }
    s->ci[i] = ci, s->e[i] = e, s->b[i] = b;
  }
}

// Output (r, j) from its int32 sum: the epilogue value by value, the residual read in its own layout.
inline void store_one(int r, int j, int acc, int n, int spatial, int mode, __global char* y_q, __global float* y_f, __global const int* bias_q,
                      __global const float* bias_f, __global const float* scale, __global const char* residual, int residual_spatial,
                      float r_scale, float y_ratio, int lo, int hi) {
  const long index = at_layout(r, j, n, spatial);
  if (mode != Q8_INT8_OUT && mode < Q8_FLOAT_OUT)
    y_q[index] = residual_out(mode, acc + bias_q[j], scale[j], residual[at_layout(r, j, n, residual_spatial)], r_scale, y_ratio, lo, hi);
  else
    store_output(mode, y_q, y_f, index, j, acc, bias_q, bias_f, scale, residual, r_scale, y_ratio, lo, hi);
}

// The kernels' body: y = x · w_nkᵀ through the ring, with x's rows staged from x as [rows, k], or,
// where geometry is given, from a channels-last conv input (implicit im2col, c its channels).
inline void mma_body(__local int* ring, __global const char* x, __global const char* w_nk, int rows, int k, int n, int spatial, int mode,
                     __global char* y_q, __global float* y_f, __global const int* bias_q, __global const float* bias_f,
                     __global const float* scale, __global const char* residual, int residual_spatial, float r_scale, float y_ratio, int lo,
                     int hi, __global const int* geometry, int c, __global int* partial, volatile __global int* counters) {
  __local char* const xs0 = (__local char*)ring;
  __local char* const ws0 = xs0 + Q8_MMA_STAGES * Q8_MMA_BM * Q8_MMA_STRIDE;
  const int tid = get_local_id(0), warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
  const int wm = (warp / Q8_MMA_WARPS_N) * Q8_MMA_TM * 16, wn = (warp % Q8_MMA_WARPS_N) * Q8_MMA_TN * 8;
  const int row0 = get_group_id(1) * Q8_MMA_BM, col0 = get_group_id(0) * Q8_MMA_BN;
  int acc[Q8_MMA_TM][Q8_MMA_TN][4];
  for (int a = 0; a < Q8_MMA_TM; ++a)
    for (int b = 0; b < Q8_MMA_TN; ++b)
      for (int i = 0; i < 4; ++i) acc[a][b][i] = 0;
  // Split-K (partial given, docs/opencl.md "Split-K"): work-group z of the Z along axis 2 takes
  // the K steps [z · per, min(total, (z + 1) · per)), per = ⌈total / Z⌉ (the host picks Z so that
  // none is empty).
  const int total = (k + Q8_MMA_BK - 1) / Q8_MMA_BK;
  const int per = partial ? (total + (int)get_num_groups(2) - 1) / (int)get_num_groups(2) : total;
  const int first = partial ? (int)get_group_id(2) * per : 0, steps = min(per, total - first), k0 = first * Q8_MMA_BK;
  const bool implicit = geometry != 0;
  ImplicitRows windows;
  if (implicit) implicit_rows(&windows, geometry, c, row0, rows, tid, k0);
  // The first STAGES − 1 steps, a commit group each (empty past the last step).
  for (int s = 0; s < Q8_MMA_STAGES - 1; ++s) {
    if (s < steps) {
      if (implicit) stage_implicit(xs0 + s * Q8_MMA_BM * Q8_MMA_STRIDE, &windows, x, geometry, c, tid);
      else stage(xs0 + s * Q8_MMA_BM * Q8_MMA_STRIDE, Q8_MMA_BM, x, rows, k, row0, k0 + s * Q8_MMA_BK, tid);
      stage(ws0 + s * Q8_MMA_BN * Q8_MMA_STRIDE, Q8_MMA_BN, w_nk, n, k, col0, k0 + s * Q8_MMA_BK, tid);
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  }
  for (int step = 0; step < steps; ++step) {
    // Groups committed so far: STAGES − 1 + step; at most STAGES − 2 pending leaves this step's
    // landed. The barrier then publishes it and retires the buffer the previous step read.
    asm volatile(Q8_MMA_WAIT ::: "memory");
    barrier(CLK_LOCAL_MEM_FENCE);
    const int ahead = step + Q8_MMA_STAGES - 1;
    if (ahead < steps) {
      const int buffer = ahead % Q8_MMA_STAGES;
      if (implicit) stage_implicit(xs0 + buffer * Q8_MMA_BM * Q8_MMA_STRIDE, &windows, x, geometry, c, tid);
      else stage(xs0 + buffer * Q8_MMA_BM * Q8_MMA_STRIDE, Q8_MMA_BM, x, rows, k, row0, k0 + ahead * Q8_MMA_BK, tid);
      stage(ws0 + buffer * Q8_MMA_BN * Q8_MMA_STRIDE, Q8_MMA_BN, w_nk, n, k, col0, k0 + ahead * Q8_MMA_BK, tid);
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
    __local const char* xt = xs0 + (step % Q8_MMA_STAGES) * Q8_MMA_BM * Q8_MMA_STRIDE;
    __local const char* wt = ws0 + (step % Q8_MMA_STAGES) * Q8_MMA_BN * Q8_MMA_STRIDE;
    // Fragments by ldmatrix.x4: lane L gives the address of row L % 8 of 8 × 16-byte matrix L / 8
    // and receives 4 bytes of each (row g, bytes 4t…4t+3): for A, matrices (rows +0, k +0),
    // (+8, +0), (+0, +16), (+8, +16) are registers 0–3; for B, (n-tile b, k +0), (b, +16),
    // (b + 1, +0), (b + 1, +16) are b's and b + 1's two registers. Rows are BK + 16 bytes apart,
    // so the 8 rows of a matrix fall on 32 different banks.
    const int quad = lane >> 3, quad_row = lane & 7;
    for (int kk = 0; kk < Q8_MMA_BK; kk += 32) {
      int bf[Q8_MMA_TN][2];
      for (int b = 0; b + 1 < Q8_MMA_TN; b += 2)
        ldmatrix_x4(wt + (wn + 8 * (b + (quad >> 1)) + quad_row) * Q8_MMA_STRIDE + kk + (quad & 1) * 16, &bf[b][0], &bf[b][1], &bf[b + 1][0],
                    &bf[b + 1][1]);
#if Q8_MMA_TN % 2
      bf[Q8_MMA_TN - 1][0] = fragment(wt, wn + 8 * (Q8_MMA_TN - 1) + g, kk + 4 * t);
      bf[Q8_MMA_TN - 1][1] = fragment(wt, wn + 8 * (Q8_MMA_TN - 1) + g, kk + 16 + 4 * t);
#endif
      for (int a = 0; a < Q8_MMA_TM; ++a) {
        int a0, a1, a2, a3;
        ldmatrix_x4(xt + (wm + 16 * a + (quad & 1) * 8 + quad_row) * Q8_MMA_STRIDE + kk + (quad >> 1) * 16, &a0, &a1, &a2, &a3);
        for (int b = 0; b < Q8_MMA_TN; ++b) {
          int d0, d1, d2, d3;
          asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                       : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)
                       : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(bf[b][0]), "r"(bf[b][1]), "r"(acc[a][b][0]), "r"(acc[a][b][1]),
                         "r"(acc[a][b][2]), "r"(acc[a][b][3]));
          acc[a][b][0] = d0, acc[a][b][1] = d1, acc[a][b][2] = d2, acc[a][b][3] = d3;
        }
      }
    }
  }
  if (partial) {
    // A split's sums go to partial[z] as they lie in the fragments; the last of the tile's Z
    // work-groups to finish (a counter per tile, which it sets back to 0 for the next launch) adds
    // the other Z − 1 to its own and runs the epilogue. membar.gl orders each work-item's stores
    // before the count, and the count before the last one's loads (volatile: past L1).
    const int z = get_group_id(2), parts = get_num_groups(2), tile = get_group_id(1) * get_num_groups(0) + get_group_id(0);
    const long plane = (long)rows * n;
    for (int a = 0; a < Q8_MMA_TM; ++a)
      for (int b = 0; b < Q8_MMA_TN; ++b)
        for (int i = 0; i < 4; ++i) {
          const int r = row0 + wm + 16 * a + g + (i >= 2 ? 8 : 0), j = col0 + wn + 8 * b + 2 * t + (i & 1);
          if (r < rows && j < n) partial[z * plane + (long)r * n + j] = acc[a][b][i];
        }
    asm volatile("membar.gl;" ::: "memory");
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (tid == 0) {
      const int done = atomic_inc(counters + tile);
      ring[0] = done == parts - 1;
      if (done == parts - 1) counters[tile] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!ring[0]) return;
    asm volatile("membar.gl;" ::: "memory");
    __global volatile const int* sums = partial;
    for (int other = 0; other < parts; ++other) {
      if (other == z) continue;
      for (int a = 0; a < Q8_MMA_TM; ++a)
        for (int b = 0; b < Q8_MMA_TN; ++b)
          for (int i = 0; i < 4; ++i) {
            const int r = row0 + wm + 16 * a + g + (i >= 2 ? 8 : 0), j = col0 + wn + 8 * b + 2 * t + (i & 1);
            if (r < rows && j < n) acc[a][b][i] += sums[other * plane + (long)r * n + j];
          }
    }
  }
  // The epilogue, Q8_MMA_PASS rows of the tile at a time: the warps put their accumulators in the
  // ring, then the work-group stores them with consecutive work-items on consecutive addresses
  // (along j for [rows, n], along r for NCHW), where the fragments' own order would scatter.
  const int row_major = spatial == 0;
  for (int pass = 0; pass < Q8_MMA_BM; pass += Q8_MMA_PASS) {
    barrier(CLK_LOCAL_MEM_FENCE);  // every warp is done with the ring, or with the last pass
    for (int a = 0; a < Q8_MMA_TM; ++a)
      for (int b = 0; b < Q8_MMA_TN; ++b)
        for (int i = 0; i < 4; ++i) {
          const int rl = wm + 16 * a + g + (i >= 2 ? 8 : 0) - pass, jl = wn + 8 * b + 2 * t + (i & 1);
          if (rl >= 0 && rl < Q8_MMA_PASS) ring[row_major ? rl * Q8_MMA_ROW_STRIDE + jl : jl * Q8_MMA_COL_STRIDE + rl] = acc[a][b][i];
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    // Four neighbours along the contiguous direction per work-item: one 4-byte store where they
    // are whole and aligned (n or spatial a multiple of 4), else one element at a time.
    for (int e = 4 * tid; e < Q8_MMA_PASS * Q8_MMA_BN; e += 4 * Q8_MMA_THREADS) {
      const int rl = row_major ? e / Q8_MMA_BN : e % Q8_MMA_PASS, jl = row_major ? e % Q8_MMA_BN : e / Q8_MMA_PASS;
      const int r = row0 + pass + rl, j = col0 + jl;
      const int at = row_major ? rl * Q8_MMA_ROW_STRIDE + jl : jl * Q8_MMA_COL_STRIDE + rl;
      const int4 v = vload4(0, ring + at);
      const long index = at_layout(r, j, n, spatial);
      const bool whole = row_major ? r < rows && j + 3 < n && (n & 3) == 0 : r + 3 < rows && j < n && (spatial & 3) == 0;
      if (whole && mode >= Q8_FLOAT_OUT) {  // float b and S: store_output's arithmetic, four at a time
        const int4 c = row_major ? (int4)(j, j + 1, j + 2, j + 3) : (int4)(j);
        const float4 g = (float4)(float_epilogue(mode, v.x, scale[c.x], bias_f[c.x]), float_epilogue(mode, v.y, scale[c.y], bias_f[c.y]),
                                  float_epilogue(mode, v.z, scale[c.z], bias_f[c.z]), float_epilogue(mode, v.w, scale[c.w], bias_f[c.w]));
        if (q8_int8_after_activation(mode))
          vstore4((char4)((char)q8_quantized(g.x, r_scale), (char)q8_quantized(g.y, r_scale), (char)q8_quantized(g.z, r_scale),
                          (char)q8_quantized(g.w, r_scale)),
                  0, y_q + index);
        else
          vstore4(g, 0, y_f + index);
        continue;
      }
      if (whole) {
        const int4 c = row_major ? (int4)(j, j + 1, j + 2, j + 3) : (int4)(j);
        const int4 tv = v + (int4)(bias_q[c.x], bias_q[c.y], bias_q[c.z], bias_q[c.w]);
        const float4 m = (float4)(scale[c.x], scale[c.y], scale[c.z], scale[c.w]);
        char4 out;
        if (mode != Q8_INT8_OUT) {
          char4 res;
          if (residual_spatial == spatial) {
            res = vload4(0, residual + index);
          } else {
            const int4 rr = row_major ? (int4)(r) : (int4)(r, r + 1, r + 2, r + 3), jj = row_major ? (int4)(j, j + 1, j + 2, j + 3) : (int4)(j);
            res = (char4)(residual[at_layout(rr.x, jj.x, n, residual_spatial)], residual[at_layout(rr.y, jj.y, n, residual_spatial)],
                          residual[at_layout(rr.z, jj.z, n, residual_spatial)], residual[at_layout(rr.w, jj.w, n, residual_spatial)]);
          }
          out = (char4)(residual_out(mode, tv.x, m.x, res.x, r_scale, y_ratio, lo, hi), residual_out(mode, tv.y, m.y, res.y, r_scale, y_ratio, lo, hi),
                        residual_out(mode, tv.z, m.z, res.z, r_scale, y_ratio, lo, hi), residual_out(mode, tv.w, m.w, res.w, r_scale, y_ratio, lo, hi));
        } else {
          out = (char4)(requantize(tv.x, m.x, lo, hi), requantize(tv.y, m.y, lo, hi), requantize(tv.z, m.z, lo, hi), requantize(tv.w, m.w, lo, hi));
        }
        vstore4(out, 0, y_q + index);
        continue;
      }
      const int values[4] = {v.x, v.y, v.z, v.w};
      for (int q = 0; q < 4; ++q) {
        const int rq = row_major ? r : r + q, jq = row_major ? j + q : j;
        if (rq < rows && jq < n)
          store_one(rq, jq, values[q], n, spatial, mode, y_q, y_f, bias_q, bias_f, scale, residual, residual_spatial, r_scale, y_ratio, lo, hi);
      }
    }
  }
}

// The ring: x's buffers, then w's; after the last step, the accumulators' staging area.
__kernel __attribute__((reqd_work_group_size(Q8_MMA_THREADS, 1, 1))) void qgemm_mma(
    __global const char* x, __global const char* w_nk, int rows, int k, int n, int spatial, int mode, __global char* y_q,
    __global float* y_f, __global const int* bias_q, __global const float* bias_f, __global const float* scale,
    __global const char* residual, int residual_spatial, float r_scale, float y_ratio, int lo, int hi) {
  __local int ring[Q8_MMA_RING / 4] __attribute__((aligned(16)));
  mma_body(ring, x, w_nk, rows, k, n, spatial, mode, y_q, y_f, bias_q, bias_f, scale, residual, residual_spatial, r_scale, y_ratio, lo, hi, 0, 0, 0, 0);
}

// QConv from a channels-last x without im2col's rows: rows = N · P output positions, k = T · C.
__kernel __attribute__((reqd_work_group_size(Q8_MMA_THREADS, 1, 1))) void qconv_implicit_mma(
    __global const char* x, __global const char* w_nk, int rows, int k, int n, int spatial, int mode, __global char* y_q,
    __global float* y_f, __global const int* bias_q, __global const float* bias_f, __global const float* scale,
    __global const char* residual, int residual_spatial, float r_scale, float y_ratio, int lo, int hi, __global const int* geometry,
    int c) {
  __local int ring[Q8_MMA_RING / 4] __attribute__((aligned(16)));
  mma_body(ring, x, w_nk, rows, k, n, spatial, mode, y_q, y_f, bias_q, bias_f, scale, residual, residual_spatial, r_scale, y_ratio, lo, hi,
           geometry, c, 0, 0);
}

// Split-K: the same two kernels with the K steps shared among the Z work-groups of axis 2, partial
// ([Z, rows, n] int32) their sums and counters (one per tile of y, 0 between launches) their count.
#define Q8_MMA_ARGS                                                                                                                    \
  __global const char *x, __global const char *w_nk, int rows, int k, int n, int spatial, int mode, __global char *y_q,                 \
      __global float *y_f, __global const int *bias_q, __global const float *bias_f, __global const float *scale,                       \
      __global const char *residual, int residual_spatial, float r_scale, float y_ratio, int lo, int hi
__kernel __attribute__((reqd_work_group_size(Q8_MMA_THREADS, 1, 1))) void qgemm_mma_split(Q8_MMA_ARGS, __global int* partial,
                                                                                           volatile __global int* counters) {
  __local int ring[Q8_MMA_RING / 4] __attribute__((aligned(16)));
  mma_body(ring, x, w_nk, rows, k, n, spatial, mode, y_q, y_f, bias_q, bias_f, scale, residual, residual_spatial, r_scale, y_ratio, lo, hi, 0, 0,
           partial, counters);
}

__kernel __attribute__((reqd_work_group_size(Q8_MMA_THREADS, 1, 1))) void qconv_implicit_mma_split(Q8_MMA_ARGS, __global const int* geometry,
                                                                                                    int c, __global int* partial,
                                                                                                    volatile __global int* counters) {
  __local int ring[Q8_MMA_RING / 4] __attribute__((aligned(16)));
  mma_body(ring, x, w_nk, rows, k, n, spatial, mode, y_q, y_f, bias_q, bias_f, scale, residual, residual_spatial, r_scale, y_ratio, lo, hi,
           geometry, c, partial, counters);
}
#endif
