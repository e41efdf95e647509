// The rows of an implicit GEMM for QConv with one group, made explicit: cols[r, kk] for output row
// r = s · P + o (sample s, output position o of P) and column kk = ci · T + tap (input channel ci,
// kernel tap of T), the input value that tap reads, 0 where it falls in the padding. Rows are
// width ≥ C · T bytes, the rest zeros (width a multiple of 16, so that qgemm_mma reads whole
// aligned 16-byte chunks). Then QConv is QGemm of cols [rows, width] by w [M, width] (the
// weights, zero-padded alike), written back as NCHW (qgemm_mma.cl's spatial argument). geometry as
// qconv.cl's.
// A work-group of 256 makes a tile of 64 rows by 64 columns through __local memory, a transpose.
// It first decomposes its 64 columns into taps and offsets, once; then it gathers with the rows
// fastest across work-items (neighbouring output positions read neighbouring input bytes of one
// channel's plane), then writes with the columns fastest, four work-items a row, 16 bytes each.
#define Q8_IM2COL_TILE 64
#define Q8_IM2COL_STRIDE 68  // bytes between a tile's rows: 17 words, so the gather's stores spread over the banks

__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void im2col_int8(__global const char* x, __global char* cols, int c,
                                                                          int rows, int width, __global const int* geometry) {
  __local char tile[Q8_IM2COL_TILE * Q8_IM2COL_STRIDE] __attribute__((aligned(16)));
  const int tid = get_local_id(0);
  const int row0 = get_group_id(0) * Q8_IM2COL_TILE, kk0 = get_group_id(1) * Q8_IM2COL_TILE;
  const int in_d = geometry[Q8_GEO_IN], in_h = geometry[Q8_GEO_IN + 1], in_w = geometry[Q8_GEO_IN + 2];
  const int out_h = geometry[Q8_GEO_OUT + 1], out_w = geometry[Q8_GEO_OUT + 2];
  const int k_d = geometry[Q8_GEO_KERNEL], k_h = geometry[Q8_GEO_KERNEL + 1], k_w = geometry[Q8_GEO_KERNEL + 2];
  const int taps = k_d * k_h * k_w, out_size = geometry[Q8_GEO_OUT] * out_h * out_w;
  const long plane = (long)in_d * in_h * in_w;
  // Each of the tile's columns, decomposed once (the divisions are the costly part): its tap's
  // offsets and its byte's offset from the window's corner. Columns past C · T get an offset no
  // window reaches, so they read 0.
  __local int col_dz[Q8_IM2COL_TILE], col_dy[Q8_IM2COL_TILE], col_dx[Q8_IM2COL_TILE];
  __local long col_offset[Q8_IM2COL_TILE];
  if (tid < Q8_IM2COL_TILE) {
    const int kk = kk0 + tid, ci = kk / taps, tap = kk % taps;
    const int dz = (tap / (k_h * k_w)) * geometry[Q8_GEO_DILATIONS], dy = ((tap / k_w) % k_h) * geometry[Q8_GEO_DILATIONS + 1], dx = (tap % k_w) * geometry[Q8_GEO_DILATIONS + 2];
    const bool real = kk < c * taps;
    col_dz[tid] = real ? dz : -(1 << 28);
    col_dy[tid] = dy, col_dx[tid] = dx;
    col_offset[tid] = ci * plane + ((long)dz * in_h + dy) * in_w + dx;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // Gather: this work-item's row is fixed (256 is a multiple of 64), its columns step by 4.
  const int rr = tid % Q8_IM2COL_TILE, r = row0 + rr;
  const int s = r / out_size, o = r % out_size;
  const int oz = o / (out_h * out_w), oy = (o / out_w) % out_h, ox = o % out_w;
  const int z0 = oz * geometry[Q8_GEO_STRIDES] - geometry[Q8_GEO_PADS], y0 = oy * geometry[Q8_GEO_STRIDES + 1] - geometry[Q8_GEO_PADS + 1], x0 = ox * geometry[Q8_GEO_STRIDES + 2] - geometry[Q8_GEO_PADS + 2];
  const long corner = (long)s * c * plane + ((long)z0 * in_h + y0) * in_w + x0;  // the window's corner, maybe in the padding
  for (int kc = tid / Q8_IM2COL_TILE; kc < Q8_IM2COL_TILE; kc += 256 / Q8_IM2COL_TILE) {
    const int iz = z0 + col_dz[kc], iy = y0 + col_dy[kc], ix = x0 + col_dx[kc];
    char v = 0;
    if (r < rows && iz >= 0 && iz < in_d && iy >= 0 && iy < in_h && ix >= 0 && ix < in_w) v = x[corner + col_offset[kc]];
    tile[rr * Q8_IM2COL_STRIDE + kc] = v;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // Write: 16 bytes a work-item, a row's 64 bytes by four neighbours.
  const int wr = tid / 4, chunk = tid % 4, out_row = row0 + wr, out_col = kk0 + chunk * 16;
  if (out_row >= rows || out_col >= width) return;
  __local const int* src = (__local const int*)(tile + wr * Q8_IM2COL_STRIDE + chunk * 16);
  *(__global int4*)(cols + (long)out_row * width + out_col) = (int4)(src[0], src[1], src[2], src[3]);
}
